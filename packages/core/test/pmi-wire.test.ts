import { describe, expect, it } from 'vitest';
import { DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { PmiLineReader, type PmiLine } from '../src/runtime/pmi/line-reader.js';
import { formatPmiLine, isPmiWireError, parsePmiLine, type PmiMessage, type PmiWireError } from '../src/runtime/pmi/wire.js';
import { seededRandom } from '../src/testing/seeded-random.js';
import { randomPmiLine } from './fixtures/pmi/random-lines.js';

/** Every line of the conversation in notes/pmi-hydra.md, plus the PMI_PORT handshake and abort. */
const HYDRA_LINES = [
  'cmd=init pmi_version=1 pmi_subversion=1',
  'cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0',
  'cmd=get_maxes',
  'cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024',
  'cmd=get_appnum',
  'cmd=appnum appnum=0',
  'cmd=get_my_kvsname',
  'cmd=my_kvsname kvsname=kvs_7836_0_1052959074_vm',
  'cmd=put kvsname=kvs_7836_0_1052959074_vm key=addr-1 value=tcp://127.0.0.1:39803',
  'cmd=put_result rc=0 msg=success',
  'cmd=barrier_in',
  'cmd=barrier_out',
  'cmd=get kvsname=kvs_7836_0_1052959074_vm key=addr-0',
  'cmd=get_result rc=0 msg=success value=tcp://127.0.0.1:42129',
  'cmd=get kvsname=kvs_7836_0_1052959074_vm key=no-such-key',
  'cmd=get_result rc=-1 msg=key_no-such-key_not_found value=unknown',
  'cmd=finalize',
  'cmd=finalize_ack',
  'cmd=initack pmiid=3',
  'cmd=initack',
  'cmd=set size=4',
  'cmd=set rank=3',
  'cmd=set debug=0',
  'cmd=abort exitcode=7',
];

function asMessage(result: PmiMessage | PmiWireError): PmiMessage {
  if (isPmiWireError(result)) throw new Error(`unexpected wire error: ${result.message}`);
  return result;
}

describe('parsePmiLine / formatPmiLine', () => {
  it('round-trips every message kind Hydra sends or expects', () => {
    for (const line of HYDRA_LINES) {
      const message = asMessage(parsePmiLine(`${line}\n`));
      expect(formatPmiLine(message.cmd, Object.fromEntries(message.fields))).toBe(`${line}\n`);
    }
  });

  it('splits each token at its first "=" and keeps "=" inside values', () => {
    const message = asMessage(parsePmiLine('cmd=get_result rc=0 msg=success value=a=b==c'));
    expect(message.cmd).toBe('get_result');
    expect([...message.fields]).toEqual([['rc', '0'], ['msg', 'success'], ['value', 'a=b==c']]);
    expect(asMessage(parsePmiLine('cmd=put_result  rc=0   msg=')).fields.get('msg')).toBe('');
  });

  it('returns a PmiWireError for lines that are not PMI', () => {
    for (const bad of ['', '\n', 'rc=0 cmd=x', 'cmd= rc=0', 'cmd=x rc', 'cmd=x =3', 'cmd=x rc=0 rc=1', 'cmd=x cmd=y', 'cmd=x a=b\tc', 'cmd=x a=\0', 'garbage']) {
      const result = parsePmiLine(bad);
      expect(isPmiWireError(result), JSON.stringify(bad)).toBe(true);
    }
    expect((parsePmiLine('cmd=x rc=0 rc=1') as PmiWireError).message).toContain('"rc" appears twice');
  });

  it('refuses keys and values the wire cannot carry, naming the field', () => {
    const refuse = (cmd: string, fields: Record<string, string | number>, argument: string): void => {
      let error: unknown;
      try {
        formatPmiLine(cmd, fields);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DatError);
      expect((error as DatError).status).toBe(DatStatus.INVALID_PARAMETER);
      expect((error as DatError).argument).toBe(argument);
    };
    refuse('put', { value: 'two words' }, 'fields.value');
    refuse('put', { value: 'line\nbreak' }, 'fields.value');
    refuse('put', { value: 'tab\there' }, 'fields.value');
    refuse('put', { 'a=b': 'x' }, 'fields.a=b');
    refuse('put', { 'a b': 'x' }, 'fields.a b');
    refuse('put', { '': 'x' }, 'fields.');
    refuse('put', { cmd: 'x' }, 'fields.cmd');
    refuse('', {}, 'cmd');
    refuse('bar rier', {}, 'cmd');
    expect(formatPmiLine('put', { key: 'k', value: 'a=b', n: 5 })).toBe('cmd=put key=k value=a=b n=5\n');
  });
});

function feed(reader: PmiLineReader, bytes: Uint8Array, cuts: number[]): PmiLine[] {
  const out: PmiLine[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(...reader.push(bytes.subarray(start, cut)));
    start = cut;
  }
  const end = reader.end();
  if (end !== undefined) out.push(end);
  return out;
}

function describeLines(lines: PmiLine[]): string[] {
  return lines.map((line) => (isPmiWireError(line) ? `error: ${line.message}` : line));
}

describe('PmiLineReader', () => {
  const stream = Buffer.from(HYDRA_LINES.map((line) => `${line}\n`).join('') + 'cmd=get_result value=€ü\n', 'utf8');

  it('gives the same lines for one chunk, byte by byte and random chunk boundaries', () => {
    const whole = feed(new PmiLineReader(), stream, []);
    expect(whole).toEqual([...HYDRA_LINES, 'cmd=get_result value=€ü']);
    const byteByByte = feed(new PmiLineReader(), stream, Array.from({ length: stream.length - 1 }, (_, i) => i + 1));
    expect(byteByByte).toEqual(whole);
    const seed = 20240611;
    const rand = seededRandom(seed);
    for (let round = 0; round < 200; round++) {
      const cuts = Array.from({ length: Math.floor(rand() * 20) }, () => Math.floor(rand() * stream.length)).sort((a, b) => a - b);
      expect(feed(new PmiLineReader(), stream, cuts), `seed ${seed} round ${round}`).toEqual(whole);
    }
  });

  it('does not keep a reference to the caller\'s buffer', () => {
    const reader = new PmiLineReader();
    const buffer = Buffer.from('cmd=barr');
    expect(reader.push(buffer)).toEqual([]);
    buffer.fill(0x41);
    expect(reader.push(Buffer.from('ier_in\n'))).toEqual(['cmd=barrier_in']);
  });

  it('fails a line longer than the maximum before its newline arrives, and then ignores input', () => {
    const reader = new PmiLineReader(16);
    expect(reader.push(Buffer.from('cmd=ok\n0123456789'))).toEqual(['cmd=ok']);
    const out = reader.push(Buffer.from('0123456789'));
    expect(out).toHaveLength(1);
    expect((out[0] as PmiWireError).message).toContain('maximum of 16 bytes');
    expect(reader.pendingBytes).toBe(0);
    expect(reader.failed).toBe(true);
    expect(reader.push(Buffer.from('cmd=ok\n'))).toEqual([]);
    // Exactly the maximum is allowed; one more byte is not.
    expect(new PmiLineReader(6).push(Buffer.from('cmd=ok\n'))).toEqual(['cmd=ok']);
    expect(describeLines(new PmiLineReader(5).push(Buffer.from('cmd=ok\n')))).toEqual(['error: a PMI line of 6 bytes exceeds the maximum of 5']);
  });

  it('reports invalid UTF-8 and a stream ending inside a line', () => {
    expect(describeLines(new PmiLineReader().push(Uint8Array.of(0x63, 0xff, 0x0a)))).toEqual(['error: a PMI line of 2 bytes is not valid UTF-8']);
    const reader = new PmiLineReader();
    reader.push(Buffer.from('cmd=finalize_a'));
    expect(reader.end()?.message).toContain('ended in the middle of a line (14 bytes');
    expect(new PmiLineReader().end()).toBeUndefined();
  });

  it('raises its maximum only upwards', () => {
    const reader = new PmiLineReader(8);
    reader.raiseMaxLineBytes(4);
    expect(reader.maxLineBytes).toBe(8);
    reader.raiseMaxLineBytes(100);
    expect(reader.push(Buffer.from(`cmd=${'x'.repeat(90)}\n`))).toHaveLength(1);
  });

  it('turns 10,000 random and truncated lines into lines or one error each, never throwing', () => {
    const seed = 777;
    const rand = seededRandom(seed);
    let messages = 0;
    let errors = 0;
    for (let i = 0; i < 10_000; i++) {
      const bytes = randomPmiLine(rand);
      const cuts = Array.from({ length: Math.floor(rand() * 4) }, () => Math.floor(rand() * bytes.length)).sort((a, b) => a - b);
      const lines = feed(new PmiLineReader(), bytes, cuts);
      // At most one error, and only as the last item.
      expect(lines.findIndex(isPmiWireError) === -1 || lines.findIndex(isPmiWireError) === lines.length - 1, `seed ${seed} line ${i}`).toBe(true);
      for (const line of lines) {
        const result = isPmiWireError(line) ? line : parsePmiLine(line);
        if (isPmiWireError(result)) errors++;
        else {
          messages++;
          // A parsed message formats back to a line that parses to the same message.
          const again = parsePmiLine(formatPmiLine(result.cmd, Object.fromEntries(result.fields)));
          expect(again, `seed ${seed} line ${i}`).toEqual(result);
        }
      }
    }
    expect(messages).toBeGreaterThan(1000);
    expect(errors).toBeGreaterThan(1000);
  });
});
