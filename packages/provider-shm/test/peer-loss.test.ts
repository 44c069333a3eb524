// A peer thread that dies mid-job (process.exit, an uncaught error): the survivor's connection
// breaks and its outstanding requests and receives flush, in order, within 2 s of the thread's end,
// through the notice the launcher posts for every rank thread that ends.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DtoStatus, EpState, MemAccess, encodeJobKey, spawnWorkerRank, type DatEvent, type EventDispatcher } from '@dapl/core';
import { shmProvider } from '../src/index.js';

const peer = fileURLToPath(new URL('./fixtures/peer.mjs', import.meta.url));

async function next(evd: EventDispatcher): Promise<DatEvent> {
  return evd.wait({ timeoutMs: 30_000 });
}

describe('shm: a peer thread that dies', () => {
  it.each([
    ['exit', { kind: 'exited', code: 3 }],
    ['throw', { kind: 'exited', code: 1 }],
  ])('by %s: connection-broken and every outstanding request and receive flushed, within 2 s of its end', async (death, exit) => {
    const jobKey = randomBytes(32);
    const ia = await shmProvider.openIa({ jobKey, parameters: { spin: 'off' } });
    try {
      const pz = ia.createPz();
      const evds = { recv: ia.createEvd(), request: ia.createEvd(), connect: ia.createEvd() };
      const listen = ia.createEvd();
      const psp = await ia.createPspAny(listen);
      const ep = ia.createEp(pz, evds);
      const sink = pz.registerLmr(new Uint8Array(64), MemAccess.LOCAL);
      const receives = ['r0', 'r1', 'r2'];
      receives.forEach((cookie, i) => ep.postRecv([{ lmr: sink, offset: i * 16, length: 16 }], cookie));
      const thread = spawnWorkerRank({ rank: 1, program: peer, args: [ia.address, String(psp.connQual), death], cwd: process.cwd(), env: { ...process.env, DAPL_JOB_KEY: encodeJobKey(jobKey), PMI_SIZE: '2' } as Record<string, string>, stdin: false });
      thread.stdout.resume();
      thread.stderr.resume();
      const request = await next(listen);
      if (request.type !== 'connection-request') throw new Error(request.type);
      request.request.accept(ep);
      expect((await next(evds.connect)).type).toBe('connection-established');
      const hello = await next(evds.recv);
      expect(hello).toMatchObject({ cookie: 'r0', status: DtoStatus.SUCCESS, transferredLength: 5 });
      // The peer posts no receive: these stall in the ring until the connection breaks.
      const src = pz.registerLmr(new Uint8Array(16), MemAccess.LOCAL);
      const requests = ['s0', 's1'];
      for (const cookie of requests) ep.postSend([{ lmr: src, offset: 0, length: 16 }], cookie);
      const ended = thread.exited.then((how) => ({ how, at: performance.now() }));
      const broken = await next(evds.connect);
      const brokenAt = performance.now();
      expect(broken.type).toBe('connection-broken');
      const { how, at } = await ended;
      expect(how).toEqual(exit);
      expect(brokenAt - at).toBeLessThan(2000);
      for (const cookie of requests) expect(await next(evds.request)).toMatchObject({ cookie, status: DtoStatus.FLUSHED });
      for (const cookie of receives.slice(1)) expect(await next(evds.recv)).toMatchObject({ cookie, op: 'recv', status: DtoStatus.FLUSHED });
      expect(ep.state).toBe(EpState.DISCONNECTED);
      expect(ia.counters().connections).toBe(0);
    } finally {
      await ia.close();
    }
  }, 60_000);
});
