import { randomBytes } from 'node:crypto';
import { MemAccess } from '@dapl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BusyPoll } from '../src/busy-poll.js';
import { TcpIa } from '../src/ia.js';
import { tcpProvider } from '../src/index.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('BusyPoll', () => {
  let now = 0;
  const clock = () => now;
  afterEach(() => {
    now = 0;
  });

  it('keeps the loop turning until the window has passed without input, then stops', async () => {
    const poll = new BusyPoll(100, clock);
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

describe('tcp.pollUs', () => {
  it('makes the IA poll after input arrives, and stop once the window has passed', async () => {
    const jobKey = randomBytes(32);
    const a = await tcpProvider.openIa({ jobKey, parameters: { pollUs: 2_000 } });
    const b = await tcpProvider.openIa({ jobKey });
    try {
      const aevd = a.createEvd();
      const psp = await a.createPspAny(aevd);
      const aep = a.createEp(a.createPz(), { recv: aevd, request: aevd, connect: aevd });
      const bevd = b.createEvd();
      const bpz = b.createPz();
      const bep = b.createEp(bpz, { recv: bevd, request: bevd, connect: bevd });
      const buf = new Uint8Array(8);
      const apz = aep.pz;
      aep.postRecv([{ lmr: apz.registerLmr(buf, MemAccess.LOCAL), offset: 0, length: 8 }], 'r');
      bep.connect(a.address, psp.connQual);
      const cr = await aevd.wait({ timeoutMs: 5_000 });
      if (cr.type !== 'connection-request') throw new Error(`expected a connection request, got ${cr.type}`);
      cr.request.accept(aep);
      expect((await bevd.wait({ timeoutMs: 5_000 })).type).toBe('connection-established');
      expect(a).toBeInstanceOf(TcpIa);
      const poll = (a as TcpIa).busyPoll;
      const before = poll.turns;
      bep.postSend([{ lmr: bpz.registerLmr(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), MemAccess.LOCAL), offset: 0, length: 8 }], 's');
      let received = await aevd.wait({ timeoutMs: 5_000 });
      while (received.type !== 'dto-completion') received = await aevd.wait({ timeoutMs: 5_000 });
      expect(received.op).toBe('recv');
      expect([...buf]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(poll.windowUs).toBe(2_000);
      expect(poll.turns).toBeGreaterThan(before);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(poll.active).toBe(false);
      expect((b as TcpIa).busyPoll.turns).toBe(0); // pollUs 0: never
    } finally {
      await a.close();
      await b.close();
    }
  });
});
