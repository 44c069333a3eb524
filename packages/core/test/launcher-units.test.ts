import { describe, expect, it } from 'vitest';
import { UsageError, type ParsedArgs } from '../src/cli/cli-types.js';
import { LineForwarder } from '../src/launcher/line-forwarder.js';
import { MAX_RANKS, parseRunArguments } from '../src/launcher/run-arguments.js';
import { describeFailure, exitCodeOf, type JobFailure } from '../src/launcher/job-outcome.js';
import { jobEnvironment, newJobKey, rankEnvironment } from '../src/launcher/rank-environment.js';
import { decodeJobKey } from '../src/config/job-key.js';

/** Feed `bytes` to a forwarder in chunks cut at `cuts`; returns every write. */
function forward(bytes: Buffer, cuts: number[], prefix = ''): string[] {
  const writes: string[] = [];
  const f = new LineForwarder((t) => writes.push(t), prefix);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    f.push(bytes.subarray(at, cut));
    at = cut;
  }
  f.flush();
  return writes;
}

describe('LineForwarder', () => {
  const text = 'alpha\nβeta: ünïcödé ✓\n\ngamma 🚀\nlast without newline';
  const bytes = Buffer.from(text, 'utf8');
  const expectedLines = ['alpha\n', 'βeta: ünïcödé ✓\n', '\n', 'gamma 🚀\n', 'last without newline\n'];

  it('writes whole lines only, whatever the chunk boundaries (every single cut, then random cuts)', () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const writes = forward(bytes, [cut]);
      expect(writes.join('')).toBe(expectedLines.join(''));
      for (const w of writes) expect(w.endsWith('\n')).toBe(true);
    }
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 200; round++) {
      const cuts = [...new Set(Array.from({ length: random(12) }, () => random(bytes.length + 1)))].sort((a, b) => a - b);
      const writes = forward(bytes, cuts, '[3] ');
      expect(writes.join('')).toBe(expectedLines.map((l) => `[3] ${l}`).join(''));
      for (const w of writes) expect(w.split('\n').slice(0, -1).every((l) => l.startsWith('[3] '))).toBe(true);
    }
  });

  it('byte-at-a-time input keeps a 4-byte character whole', () => {
    const writes = forward(Buffer.from('🚀x\n'), [1, 2, 3, 4]);
    expect(writes).toEqual(['🚀x\n']);
  });

  it('several lines in one chunk are one write; a chunk without newline writes nothing until flush', () => {
    const writes: string[] = [];
    const f = new LineForwarder((t) => writes.push(t), '[0] ');
    f.push('a\nb\nc');
    expect(writes).toEqual(['[0] a\n[0] b\n']);
    f.push('d');
    expect(writes).toHaveLength(1);
    f.flush();
    f.flush();
    expect(writes).toEqual(['[0] a\n[0] b\n', '[0] cd\n']);
  });

  it('cuts a line longer than the limit into lines', () => {
    const writes: string[] = [];
    const f = new LineForwarder((t) => writes.push(t), '', 8);
    f.push('0123');
    f.push('456789ab');
    f.push('c\n');
    expect(writes).toEqual(['0123456789ab\n', 'c\n']);
  });
});

function args(values: ParsedArgs['values'], positionals: string[]): ParsedArgs {
  return { values, positionals };
}

function usageMessage(parsed: ParsedArgs): string {
  try {
    parseRunArguments(parsed, '/work/dir');
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).command).toBe('run');
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('parseRunArguments', () => {
  it('reads every option and resolves paths against cwd', () => {
    const r = parseRunArguments(
      args({ np: '4', provider: 'tcp', config: 'conf/d.json', 'tag-output': true, timeout: '1.5' }, ['app.mjs', '--size', '10']),
      '/work/dir',
    );
    expect(r).toEqual({
      size: 4,
      program: '/work/dir/app.mjs',
      args: ['--size', '10'],
      provider: 'tcp',
      configFile: '/work/dir/conf/d.json',
      tagOutput: true,
      timeoutMs: 1500,
    });
    const minimal = parseRunArguments(args({ np: '1' }, ['/abs/app.mjs']), '/work/dir');
    expect(minimal).toEqual({ size: 1, program: '/abs/app.mjs', args: [], provider: undefined, configFile: undefined, tagOutput: false, timeoutMs: undefined });
  });

  it('refuses a missing, zero, negative, non-integer or too large -n, naming what is allowed', () => {
    expect(usageMessage(args({}, ['a.mjs']))).toBe(`-n N is required: the number of ranks, an integer from 1 to ${MAX_RANKS}`);
    for (const bad of ['0', '-1', 'abc', '2.5', '', ' 3', '1e3', String(MAX_RANKS + 1)]) {
      expect(usageMessage(args({ np: bad }, ['a.mjs']))).toBe(`-n must be an integer from 1 to ${MAX_RANKS} (the number of ranks), got "${bad}"`);
    }
    expect(parseRunArguments(args({ np: String(MAX_RANKS) }, ['a.mjs']), '/').size).toBe(MAX_RANKS);
  });

  it('refuses a missing program, an empty provider or config, and a bad --timeout', () => {
    expect(usageMessage(args({ np: '2' }, []))).toBe('no program given: expected dapl run -n N [options] [--] program.mjs [args...]');
    expect(usageMessage(args({ np: '2', provider: '' }, ['a.mjs']))).toContain('--provider must name');
    expect(usageMessage(args({ np: '2', config: '' }, ['a.mjs']))).toContain('--config must name a file');
    for (const bad of ['0', '-1', 'soon', '1e3', '']) {
      expect(usageMessage(args({ np: '2', timeout: bad }, ['a.mjs']))).toMatch(/^--timeout must be a number of seconds greater than 0 and at most \d+, got ".*"$/);
    }
  });
});

describe('describeFailure and exitCodeOf', () => {
  const cases: [JobFailure, string, number][] = [
    [{ kind: 'rank-exited', rank: 2, code: 3, atMs: 412, running: 3 }, 'dapl run: rank 2 exited with code 3 after 0.41 s; stopping the other 3 ranks\n', 3],
    [{ kind: 'rank-signaled', rank: 2, signal: 'SIGKILL', atMs: 1000, running: 1 }, 'dapl run: rank 2 was killed by SIGKILL after 1.00 s; stopping the other rank\n', 137],
    [{ kind: 'rank-aborted', rank: 1, code: 7, atMs: 50, running: 0 }, 'dapl run: rank 1 called abort with code 7 after 0.05 s\n', 7],
    [{ kind: 'rank-aborted', rank: 1, code: 0, atMs: 50, running: 0 }, 'dapl run: rank 1 called abort with code 0 after 0.05 s\n', 1],
    [
      { kind: 'rank-lost', rank: 0, atMs: 10, running: 2 },
      'dapl run: rank 0 closed its PMI connection without finalize and exited with code 0 after 0.01 s; stopping the other 2 ranks\n',
      1,
    ],
    [
      { kind: 'protocol-error', rank: 3, message: 'unknown command\n"cmd=hello"', atMs: 20, running: 3 },
      'dapl run: rank 3 broke the PMI protocol (unknown command "cmd=hello") after 0.02 s; stopping the other 3 ranks\n',
      5,
    ],
    [{ kind: 'not-started', rank: 1, message: 'spawn EAGAIN', atMs: 1, running: 1 }, 'dapl run: rank 1 could not be started (spawn EAGAIN) after 0.00 s; stopping the other rank\n', 1],
    [{ kind: 'timed-out', limitMs: 1500, atMs: 1500, running: 4 }, 'dapl run: the job did not finish within --timeout 1.5 s; stopping the 4 running ranks\n', 124],
    [{ kind: 'interrupted', signal: 'SIGINT', atMs: 2000, running: 1 }, 'dapl run: received SIGINT after 2.00 s; forwarding it to the 1 running rank\n', 130],
    [{ kind: 'interrupted', signal: 'SIGTERM', atMs: 2000, running: 2 }, 'dapl run: received SIGTERM after 2.00 s; forwarding it to the 2 running ranks\n', 143],
  ];
  it.each(cases)('%j', (failure, text, code) => {
    expect(describeFailure(failure)).toBe(text);
    expect(exitCodeOf(failure)).toBe(code);
  });

  it('a completed job exits 0', () => {
    expect(exitCodeOf({ kind: 'completed' })).toBe(0);
  });
});

describe('rank environment', () => {
  it('passes the parent environment, a fresh 32-byte job key, provider and config, and that the configuration was checked; drops an outer launcher\'s PMI variables', () => {
    const key = newJobKey();
    expect(decodeJobKey(key, 'test')).toHaveLength(32);
    expect(newJobKey()).not.toBe(key);
    const job = jobEnvironment(
      { HOME: '/home/x', UNSET: undefined, PMI_PORT: 'h:1', PMI_ID: '2', PMI_FD: '9', DAPL_JOB_KEY: 'old' },
      { jobKey: key, provider: 'tcp', configFile: '/c/d.json' },
    );
    expect(job).toEqual({ HOME: '/home/x', DAPL_JOB_KEY: key, DAPL_CONFIG_CHECKED: '1', DAPL_PROVIDER: 'tcp', DAPL_CONFIG: '/c/d.json' });
    expect(rankEnvironment(job, 2, 4)).toEqual({ ...job, PMI_FD: '3', PMI_RANK: '2', PMI_SIZE: '4', MPI_LOCALNRANKS: '4', MPI_LOCALRANKID: '2' });
    expect(jobEnvironment({ A: '1' }, { jobKey: key })).toEqual({ A: '1', DAPL_JOB_KEY: key, DAPL_CONFIG_CHECKED: '1' });
  });
});
