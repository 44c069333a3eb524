import { describe, expect, it } from 'vitest';
import { DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { SingletonRuntime } from '../src/runtime/singleton-runtime.js';
import { WallClock } from '../src/runtime/wall-clock.js';

describe('SingletonRuntime', () => {
  it('is rank 0 of 1 with a wall clock', () => {
    const runtime = new SingletonRuntime();
    expect(runtime.rank).toBe(0);
    expect(runtime.size).toBe(1);
    expect(runtime.clock).toBeInstanceOf(WallClock);
  });

  it('stores and returns KVS values; barrier and fence resolve', async () => {
    const runtime = new SingletonRuntime();
    await runtime.put('addr-0', 'host:1234');
    await runtime.fence();
    await runtime.barrier();
    expect(await runtime.get('addr-0')).toBe('host:1234');
  });

  it('rejects a get of an unknown key with INVALID_PARAMETER naming the key', async () => {
    const error = await new SingletonRuntime().get('missing-key').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatError);
    expect((error as DatError).status).toBe(DatStatus.INVALID_PARAMETER);
    expect((error as DatError).message).toContain('"missing-key"');
  });

  it('refuses keys and values that the PMI wire could not carry', async () => {
    const runtime = new SingletonRuntime();
    await expect(runtime.put('a b', 'x')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'key' });
    await expect(runtime.put('a=b', 'x')).rejects.toMatchObject({ argument: 'key' });
    await expect(runtime.put('k', 'two words')).rejects.toMatchObject({ argument: 'value' });
  });

  it('abort writes the message and exits with the code', async () => {
    const exits: number[] = [];
    const written: string[] = [];
    const runtime = new SingletonRuntime({ exit: (code) => exits.push(code), writeError: (t) => written.push(t) });
    await expect(runtime.abort(7, 'bad things')).rejects.toMatchObject({ status: DatStatus.ABORT });
    expect(exits).toEqual([7]);
    expect(written.join('')).toContain('bad things');
  });

  it('refuses calls after finalize', async () => {
    const runtime = new SingletonRuntime();
    await runtime.finalize();
    await expect(runtime.put('k', 'v')).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
  });
});

describe('WallClock', () => {
  it('reads performance.now() in seconds, with a microsecond tick and no-op charges', () => {
    const clock = new WallClock();
    const a = clock.now();
    clock.charge(1e9);
    clock.chargeCopy(1 << 20);
    const b = clock.now();
    expect(b).toBeGreaterThanOrEqual(a);
    expect(clock.tick).toBe(1e-6);
    const before = performance.now();
    const now = clock.now();
    const after = performance.now();
    expect(now * 1000).toBeGreaterThanOrEqual(before - 1e-6); // one rounding of the division
    expect(now * 1000).toBeLessThanOrEqual(after + 1e-6);
  });
});
