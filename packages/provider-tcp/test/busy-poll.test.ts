import { randomBytes } from 'node:crypto';
import { MemAccess } from '@dapl/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BusyPoll } from '../src/busy-poll.js';
import { TcpIa } from '../src/ia.js';
import { tcpProvider } from '../src/index.js';
import { pollWindowUs, resolveTcpParameters } from '../src/params.js';
import { connectedEndpoints } from './pairs.js';
import { availableParallelism } from 'node:os';
import { DatError, DatStatus } from '@dapl/core';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('BusyPoll', () => {
  let now = 0;
  const clock = () => now;
  afterEach(() => {
    now = 0;
  });

  it('keeps the loop turning until the window has passed without input, then stops', async () => {
    // The CPU clock runs with the wall clock: the process had its CPU all along.
    const poll = new BusyPoll(100, clock, clock);
    poll.kick();
    expect(poll.active).toBe(true);
    for (let i = 0; i < 5; i++) await turn();
    expect(poll.turns).toBeGreaterThanOrEqual(4);
    now = 0.09; // 90 µs: still inside
    await turn();
    expect(poll.active).toBe(true);
    poll.kick(); // input at 90 µs: the window now ends at 190 µs
    now = 0.15;
    await turn();
    await turn();
    expect(poll.active).toBe(true);
    now = 0.2;
    await turn();
    await turn();
    expect(poll.active).toBe(false);
    const turns = poll.turns;
    await turn();
    expect(poll.turns).toBe(turns);
  });

  it('pauses for a second after a stretch of spinning in which the process ran less than half the time, then polls again', async () => {
    let cpu = 0;
    const poll = new BusyPoll(200, clock, () => cpu);
    /** The clocks move to `wallMs` and `cpuMs`, and the loop turns past the window. */
    const passTo = async (wallMs: number, cpuMs: number) => {
      now = wallMs;
      cpu = cpuMs;
      await turn();
      await turn();
      expect(poll.active).toBe(false);
    };
    poll.kick();
    await turn();
    // 5 ms pass, and the process ran for 0.2 ms of them: others had the CPU.
    await passTo(5, 0.2);
    expect(poll.backoffs).toBe(1);
    now = 900;
    poll.kick();
    expect(poll.active).toBe(false);
    now = 1_006;
    poll.kick();
    expect(poll.active).toBe(true);
    // This stretch had the CPU: polling goes on as before.
    await passTo(1_006.3, 0.5);
    expect(poll.backoffs).toBe(1);
    poll.kick();
    expect(poll.active).toBe(true);
    poll.close();
  });

  it('judges a stretch that input keeps going as it goes, not only at its end', async () => {
    let cpu = 0;
    const poll = new BusyPoll(200, clock, () => cpu);
    poll.kick();
    // 30 ms of input every 0.1 ms, on the CPU throughout.
    for (let t = 0; t < 30; t += 0.1) {
      now = t;
      cpu = t;
      poll.kick();
      await turn();
    }
    expect(poll.active).toBe(true);
    expect(poll.backoffs).toBe(0);
    // Then the input goes on, but the process runs a tenth of the time.
    for (let t = 30; t < 45 && poll.active; t += 0.1) {
      now = t;
      cpu = 30 + (t - 30) / 10;
      poll.kick();
      await turn();
    }
    expect(poll.active).toBe(false);
    expect(poll.backoffs).toBe(1);
  });

  it('never polls with a window of 0, nor after close', async () => {
    const off = new BusyPoll(0, clock);
    off.kick();
    expect(off.active).toBe(false);
    const closed = new BusyPoll(1_000, clock);
    closed.kick();
    closed.close();
    await turn();
    await turn();
    expect(closed.active).toBe(false);
    closed.kick();
    expect(closed.active).toBe(false);
  });
});

describe('tcp.busyPoll', () => {
  const params = (busyPoll: string, pollUs = 200) => resolveTcpParameters({ busyPoll, pollUs });

  it('auto polls only when the launcher says every process of the job here has a CPU', () => {
    expect(pollWindowUs(params('auto'), 2, 2)).toBe(200);
    expect(pollWindowUs(params('auto'), 1, 2)).toBe(200);
    expect(pollWindowUs(params('auto'), 3, 2)).toBe(0); // oversubscribed: sleep, as Open MPI yields
    expect(pollWindowUs(params('auto'), undefined, 64)).toBe(0); // nobody said: stay idle
    expect(pollWindowUs(params('on'), undefined, 2)).toBe(200);
    expect(pollWindowUs(params('on', 50), 16, 2)).toBe(50);
    expect(pollWindowUs(params('off'), 1, 64)).toBe(0);
    expect(pollWindowUs(params('auto', 0), 1, 64)).toBe(0); // a window of 0 never polls
  });

  it('refuses a busyPoll that is not auto, on or off', () => {
    expect(() => resolveTcpParameters({ busyPoll: 'yes' })).toThrow(/busyPoll/);
  });

  it('openIa takes localProcesses from its options, and reports the window it chose in its counters', async () => {
    const jobKey = randomBytes(32);
    const fits = await tcpProvider.openIa({ jobKey, localProcesses: 1 });
    const crowded = await tcpProvider.openIa({ jobKey, localProcesses: availableParallelism() + 1 });
    const unknown = await tcpProvider.openIa({ jobKey });
    const forced = await tcpProvider.openIa({ jobKey, localProcesses: availableParallelism() + 1, parameters: { busyPoll: 'on', pollUs: 75 } });
    try {
      expect(fits.counters().busyPollUs).toBe(200);
      expect(crowded.counters().busyPollUs).toBe(0);
      expect(unknown.counters().busyPollUs).toBe(0);
      expect(forced.counters().busyPollUs).toBe(75);
      expect(fits.counters().busyPollTurns).toBe(0); // no input yet
      expect(fits.counters().busyPollBackoffs).toBe(0);
    } finally {
      for (const ia of [fits, crowded, unknown, forced]) await ia.close();
    }
  });

  it.each([0, -1, 1.5, Number.NaN, '2', null])('openIa refuses localProcesses %s with INVALID_PARAMETER naming it', async (bad) => {
    const error = await tcpProvider.openIa({ jobKey: randomBytes(32), localProcesses: bad as unknown as number }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatError);
    expect((error as DatError).status).toBe(DatStatus.INVALID_PARAMETER);
    expect((error as DatError).argument).toBe('options.localProcesses');
    expect((error as DatError).message).toMatch(/options\.localProcesses must be a whole number/);
  });

  it('makes the IA poll after input arrives, and stop once the window has passed', async () => {
    const { a, b, server: aep, client: bep, serverEvd: aevd } = await connectedEndpoints({ server: { busyPoll: 'on', pollUs: 2_000 } });
    try {
      const bpz = bep.pz;
      const buf = new Uint8Array(8);
      aep.postRecv([{ lmr: aep.pz.registerLmr(buf, MemAccess.LOCAL), offset: 0, length: 8 }], 'r');
      expect(a).toBeInstanceOf(TcpIa);
      const poll = (a as TcpIa).busyPoll;
      const before = poll.turns;
      const kicksBefore = poll.kicks;
      bep.postSend([{ lmr: bpz.registerLmr(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), MemAccess.LOCAL), offset: 0, length: 8 }], 's');
      let received = await aevd.wait({ timeoutMs: 5_000 });
      while (received.type !== 'dto-completion') received = await aevd.wait({ timeoutMs: 5_000 });
      // The input kicked the poller. Whether it then turned is the poller's own judgement (unit
      // tests above): on a busy host the window can pass before the first turn, or the poller may
      // have paused after the handshake's stretch found the process mostly off its CPU.
      const pollingOnArrival = poll.active;
      expect(received.op).toBe('recv');
      expect([...buf]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(poll.windowUs).toBe(2_000);
      expect(poll.kicks).toBeGreaterThan(kicksBefore);
      expect(pollingOnArrival || poll.turns > before || poll.backoffs > 0).toBe(true);
      // And it stops once the window has passed without input (waited for, not timed).
      await vi.waitUntil(() => !poll.active, { timeout: 10_000, interval: 5 });
      expect((b as TcpIa).busyPoll.turns).toBe(0); // auto, and no localProcesses: never
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('makes the IA poll after its own send is written too: the answer may come soon', async () => {
    const { a, b, client: bep } = await connectedEndpoints({ client: { busyPoll: 'on', pollUs: 2_000 } });
    try {
      const bpz = bep.pz;
      const poll = (b as TcpIa).busyPoll;
      // The handshake's input kicked it: let that window pass first.
      await vi.waitUntil(() => !poll.active, { timeout: 10_000, interval: 5 });
      const before = poll.kicks;
      // No receive is posted at `a`: it pauses its input and acknowledges nothing, so only our write can kick.
      bep.postSend([{ lmr: bpz.registerLmr(new Uint8Array(8), MemAccess.LOCAL), offset: 0, length: 8 }], 's');
      await vi.waitUntil(() => poll.kicks > before, { timeout: 10_000, interval: 1 });
      await vi.waitUntil(() => !poll.active, { timeout: 10_000, interval: 5 });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
