import { describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { encodeJobKey } from '../src/config/job-key.js';
import { createLocalJob, PMI_KEY_MAX, PMI_VALUE_MAX } from '../src/runtime/local-job.js';
import { JOB_KEY_KVS_KEY, resolveJobKey } from '../src/runtime/job-key.js';
import type { Clock } from '../src/runtime/runtime.js';
import { WallClock } from '../src/runtime/wall-clock.js';
import { rejection } from './support/dat-errors.js';

describe('createLocalJob', () => {
  it('gives ranks 0..size-1 of one job, each with a wall clock unless told otherwise', () => {
    const job = createLocalJob(3);
    expect(job.map((r) => [r.rank, r.size])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    for (const r of job) expect(r.clock).toBeInstanceOf(WallClock);
    expect(job[0].clock).not.toBe(job[1].clock);
  });

  it('uses options.clock(rank) for each rank', () => {
    const clocks: Clock[] = [];
    const job = createLocalJob(2, {
      clock: (rank) => {
        const clock: Clock = { now: () => rank, tick: 1, charge: () => {}, chargeCopy: () => {}, delay: () => Promise.resolve() };
        clocks.push(clock);
        return clock;
      },
    });
    expect(job[0].clock).toBe(clocks[0]);
    expect(job[1].clock.now()).toBe(1);
  });

  it('refuses a size that is not an integer >= 1', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) {
      expect(() => createLocalJob(size)).toThrow(expect.objectContaining({ status: DatStatus.INVALID_PARAMETER, argument: 'size' }));
    }
  });

  it('makes puts visible to every rank only after a fence all ranks joined', async () => {
    const [a, b, c] = createLocalJob(3);
    await a.put('addr-0', 'loop:0#1024');
    const early = await rejection(b.get('addr-0'));
    expect(early.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(early.message).toContain('"addr-0" not found');

    let fenced = 0;
    const fences = [a, b].map((r) => r.fence().then(() => fenced++));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fenced).toBe(0); // rank 2 has not arrived
    await expect(b.get('addr-0')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER });
    await Promise.all([...fences, c.fence()]);
    expect(fenced).toBe(2);
    for (const r of [a, b, c]) expect(await r.get('addr-0')).toBe('loop:0#1024');
  });

  it('fence and barrier are one reusable collective (PMI-1 barrier_in), many rounds in a row', async () => {
    const job = createLocalJob(4);
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        job.map(async (r) => {
          await r.put(`k${round}-${r.rank}`, `v${round}.${r.rank}`);
          await (r.rank % 2 === 0 ? r.fence() : r.barrier());
        }),
      );
      for (const r of job) expect(await r.get(`k${round}-${(r.rank + 1) % 4}`)).toBe(`v${round}.${(r.rank + 1) % 4}`);
    }
  });

  it('refuses keys and values the PMI-1 wire could not carry, naming the key and the limit', async () => {
    const [r] = createLocalJob(1);
    await expect(r.put('a b', 'x')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'key' });
    await expect(r.put('a=b', 'x')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'key' });
    await expect(r.put('', 'x')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'key' });
    await expect(r.put('k', 'two words')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'value' });
    const longKey = await rejection(r.put('k'.repeat(PMI_KEY_MAX + 1), 'x'));
    expect(longKey.status).toBe(DatStatus.LENGTH_ERROR);
    expect(longKey.message).toContain(String(PMI_KEY_MAX));
    const longValue = await rejection(r.put('big', 'v'.repeat(PMI_VALUE_MAX + 1)));
    expect(longValue.status).toBe(DatStatus.LENGTH_ERROR);
    expect(longValue.message).toContain('"big"');
    expect(longValue.message).toContain('1023');
    // The limits themselves are allowed.
    await r.put('k'.repeat(PMI_KEY_MAX), 'v'.repeat(PMI_VALUE_MAX));
    await r.fence();
    expect(await r.get('k'.repeat(PMI_KEY_MAX))).toHaveLength(PMI_VALUE_MAX);
  });

  it('abort calls onAbort and makes every waiting rank reject with ABORT', async () => {
    const aborts: unknown[] = [];
    const [a, b, c] = createLocalJob(3, { onAbort: (...args) => aborts.push(args) });
    const waiting = [rejection(a.fence()), rejection(b.barrier())];
    const own = await rejection(c.abort(3, 'out of memory'));
    expect(own.status).toBe(DatStatus.ABORT);
    expect(aborts).toEqual([[2, 3, 'out of memory']]);
    for (const error of await Promise.all(waiting)) {
      expect(error.status).toBe(DatStatus.ABORT);
      expect(error.message).toContain('rank 2');
      expect(error.message).toContain('out of memory');
    }
    // Later calls of any rank fail the same way instead of hanging.
    await expect(a.fence()).rejects.toMatchObject({ status: DatStatus.ABORT });
    await expect(b.get('x')).rejects.toMatchObject({ status: DatStatus.ABORT });
  });

  it('abort without onAbort still rejects the waiting ranks with ABORT', async () => {
    const [a, b] = createLocalJob(2);
    const waiting = rejection(a.barrier());
    await expect(b.abort(1, 'bye')).rejects.toMatchObject({ status: DatStatus.ABORT });
    expect((await waiting).status).toBe(DatStatus.ABORT);
  });

  it('a rank that finalizes breaks the pending and later collectives of the others', async () => {
    const [a, b, c] = createLocalJob(3);
    const pending = rejection(a.fence());
    await c.finalize();
    const error = await pending;
    expect(error.status).toBe(DatStatus.CONNECTION_BROKEN);
    expect(error.message).toContain('rank 2');
    await expect(b.barrier()).rejects.toMatchObject({ status: DatStatus.CONNECTION_BROKEN });
    await expect(c.put('k', 'v')).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
  });

  it('a job whose ranks all pass the last barrier then finalize ends cleanly', async () => {
    const job = createLocalJob(3);
    await Promise.all(job.map((r) => r.barrier()));
    await Promise.all(job.map((r) => r.finalize()));
    await expect(job[0].fence()).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
  });

  it('refuses a second fence from a rank whose first is still pending', async () => {
    const [a, b] = createLocalJob(2);
    const first = a.fence();
    await expect(a.fence()).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
    await Promise.all([first, b.fence()]);
  });

  it('with collectiveTimeoutMs, a fence that some rank never joins rejects naming the absent ranks', async () => {
    const [a] = createLocalJob(3, { collectiveTimeoutMs: 30 });
    const error = await rejection(a.fence());
    expect(error.status).toBe(DatStatus.TIMEOUT_EXPIRED);
    expect(error.message).toContain('1, 2');
  });
});

describe('resolveJobKey', () => {
  it('decodes DAPL_JOB_KEY when set, without touching the KVS', async () => {
    const key = new Uint8Array(32).map((_, i) => i);
    const [a, b] = createLocalJob(2);
    const env = { DAPL_JOB_KEY: encodeJobKey(key) };
    expect(await resolveJobKey(a, env)).toEqual(key);
    expect(await resolveJobKey(b, env)).toEqual(key);
    await expect(a.get(JOB_KEY_KVS_KEY)).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER });
  });

  it('refuses a malformed DAPL_JOB_KEY', async () => {
    const [a] = createLocalJob(1);
    await expect(resolveJobKey(a, { DAPL_JOB_KEY: 'abc' })).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'job.key' });
  });

  it('makes a fresh 32-byte key for a job of one (an empty variable counts as unset)', async () => {
    const [a] = createLocalJob(1);
    const k1 = await resolveJobKey(a, {});
    const k2 = await resolveJobKey(a, { DAPL_JOB_KEY: '' });
    expect(k1).toHaveLength(32);
    expect(k2).toHaveLength(32);
    expect(Buffer.from(k1).equals(Buffer.from(k2))).toBe(false);
  });

  it('without DAPL_JOB_KEY, rank 0 generates a key and every rank ends with the same one', async () => {
    const job = createLocalJob(5);
    const keys = await Promise.all(job.map((r) => resolveJobKey(r, {})));
    expect(keys[0]).toHaveLength(32);
    for (const key of keys) expect(encodeJobKey(key)).toBe(encodeJobKey(keys[0]));
    expect(await job[3].get(JOB_KEY_KVS_KEY)).toBe(encodeJobKey(keys[0]));
    // A second job gets a different key.
    const other = await Promise.all(createLocalJob(2).map((r) => resolveJobKey(r, {})));
    expect(encodeJobKey(other[0])).not.toBe(encodeJobKey(keys[0]));
  });
});
