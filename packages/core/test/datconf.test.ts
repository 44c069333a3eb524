import { describe, expect, it } from 'vitest';
import { parseDatConf, tokenizeDatConfLine } from '../src/config/dat-conf.js';

const TCP_LINE = 'ofa-v2-tcp u2.0 nonthreadsafe default @dapl/provider-tcp dapl.2.0 "tcp0 0" ""';

describe('tokenizeDatConfLine', () => {
  it('splits on whitespace and keeps quoted fields whole, including empty ones', () => {
    expect(tokenizeDatConfLine(TCP_LINE)).toEqual({
      fields: ['ofa-v2-tcp', 'u2.0', 'nonthreadsafe', 'default', '@dapl/provider-tcp', 'dapl.2.0', 'tcp0 0', ''],
    });
  });

  it('treats # at the start of a field as a comment, and tabs as separators', () => {
    expect(tokenizeDatConfLine('  # a comment')).toEqual({ fields: [] });
    expect(tokenizeDatConfLine('a\tb  # trailing')).toEqual({ fields: ['a', 'b'] });
    expect(tokenizeDatConfLine('"# not a comment" x')).toEqual({ fields: ['# not a comment', 'x'] });
    expect(tokenizeDatConfLine('lib#1 x')).toEqual({ fields: ['lib#1', 'x'] });
  });

  it('reports an unterminated quote and stray quotes', () => {
    expect(tokenizeDatConfLine('a "b c')).toEqual({ error: 'unterminated quote in field 2' });
    expect(tokenizeDatConfLine('a "b"c')).toEqual({ error: 'field 2 continues after its closing quote' });
    expect(tokenizeDatConfLine('a b"c"')).toEqual({ error: 'unexpected quote inside field 2' });
  });
});

describe('parseDatConf', () => {
  it('reads a default uDAPL entry with all eight fields', () => {
    const result = parseDatConf(`# DAT static registry\n\n${TCP_LINE}\n`, { file: '/etc/dat.conf', baseDir: '/etc' });
    expect(result.errors).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.entries).toEqual([
      {
        iaName: 'ofa-v2-tcp',
        apiVersion: 'u2.0',
        threadSafe: false,
        libPath: '@dapl/provider-tcp',
        specifier: '@dapl/provider-tcp',
        providerVersion: 'dapl.2.0',
        iaParams: 'tcp0 0',
        platformParams: '',
        line: 3,
      },
    ]);
  });

  it('resolves a relative lib_path against the file directory and keeps absolute ones', () => {
    const text = [
      'mine u2.0 threadsafe default ./providers/mine.mjs v1 "" ""',
      'abs u2.0 threadsafe default /opt/abs.mjs v1 "" ""',
    ].join('\n');
    const { entries } = parseDatConf(text, { file: '/etc/dapl/dat.conf', baseDir: '/etc/dapl' });
    expect(entries.map((e) => [e.iaName, e.specifier, e.threadSafe])).toEqual([
      ['mine', '/etc/dapl/providers/mine.mjs', true],
      ['abs', '/opt/abs.mjs', true],
    ]);
  });

  it('skips kernel entries with a reason', () => {
    const result = parseDatConf('kib k1.2 threadsafe default libdaplk.so dapl.1.2 "ib0 1" ""');
    expect(result.entries).toEqual([]);
    expect(result.skipped).toEqual([{ line: 1, iaName: 'kib', reason: expect.stringContaining('kernel (kDAPL)') }]);
  });

  it('skips nondefault entries with a reason', () => {
    const result = parseDatConf('alt u2.0 threadsafe nondefault ./alt.mjs v1 "" ""', { baseDir: '/x' });
    expect(result.entries).toEqual([]);
    expect(result.skipped[0]).toMatchObject({ line: 1, iaName: 'alt', reason: expect.stringContaining('"nondefault"') });
  });

  it('keeps the first entry of a name and reports later ones as skipped', () => {
    const text = ['dup u2.0 threadsafe default ./first.mjs v1 "" ""', '# comment', 'dup u2.0 threadsafe default ./second.mjs v1 "" ""'].join('\n');
    const result = parseDatConf(text, { baseDir: '/d' });
    expect(result.entries.map((e) => e.specifier)).toEqual(['/d/first.mjs']);
    expect(result.skipped).toEqual([{ line: 3, iaName: 'dup', reason: 'duplicate of dup at line 1; the first entry of a name wins' }]);
  });

  it('reports a wrong field count with the file and line number', () => {
    const text = ['# header', TCP_LINE, '', '', '', '', 'short u2.0 threadsafe default ./x.mjs'].join('\n');
    const result = parseDatConf(text, { file: 'dat.conf' });
    expect(result.entries).toHaveLength(1);
    expect(result.errors).toEqual([{ line: 7, message: 'dat.conf:7: expected 8 fields, found 5' }]);
  });

  it('reports an unterminated quote with its line number', () => {
    const result = parseDatConf(`${TCP_LINE}\nbad u2.0 threadsafe default ./x.mjs v1 "tcp0 0" "`, { file: '/etc/dat.conf' });
    expect(result.errors).toEqual([{ line: 2, message: '/etc/dat.conf:2: unterminated quote in field 8' }]);
  });

  it('reports a bad api_version, threadsafety and empty fields', () => {
    const text = [
      'a 2.0 threadsafe default ./x.mjs v1 "" ""',
      'b u2.0 sometimes default ./x.mjs v1 "" ""',
      'c u2.0 threadsafe default "" v1 "" ""',
      '"" u2.0 threadsafe default ./x.mjs v1 "" ""',
    ].join('\n');
    const { errors, entries } = parseDatConf(text);
    expect(entries).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      'dat.conf:1: api_version (field 2) "2.0" must be u<major>.<minor> (uDAPL) or k<major>.<minor> (kDAPL)',
      'dat.conf:2: threadsafety (field 3) "sometimes" must be threadsafe or nonthreadsafe',
      'dat.conf:3: lib_path (field 5) is empty',
      'dat.conf:4: ia_name (field 1) is empty',
    ]);
  });

  it('handles CRLF line endings', () => {
    const result = parseDatConf(`${TCP_LINE}\r\n# c\r\n`);
    expect(result.errors).toEqual([]);
    expect(result.entries[0]!.platformParams).toBe('');
  });
});
