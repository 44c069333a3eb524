import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../src/dat/endpoint.js';
import type { EventDispatcher } from '../src/dat/evd.js';
import type { InterfaceAdapter } from '../src/dat/ia.js';
import { MemAccess } from '../src/dat/memory.js';
import { DatStatus, DtoStatus } from '../src/dat/status.js';
import {
  decodeListenAddress,
  decodeWiringRequest,
  encodeListenAddress,
  encodeWiringRequest,
  startConnections,
} from '../src/runtime/connections/index.js';
import { createLocalJob } from '../src/runtime/local-job.js';
import type { Runtime } from '../src/runtime/runtime.js';
import { SingletonRuntime } from '../src/runtime/singleton-runtime.js';
import { createLoopbackProvider, type LoopbackIa, type LoopbackProvider } from '../src/testing/loopback/index.js';
import { seededRandom } from '../src/testing/seeded-random.js';
import { rejection } from './support/dat-errors.js';
import { establishedByPeer, receive, send, sent, startJob, waitFor, WAIT_MS } from './support/connection-job.js';

describe('Connections over the loopback provider (in-process job)', () => {
  it('ring traffic opens only neighbour connections: <= 2 per rank, 16 ends in all', async () => {
    const size = 8;
    const job = await startJob(size);
    await Promise.all(
      job.ranks.map(async (r) => {
        const left = (r.rank + size - 1) % size;
        const right = (r.rank + 1) % size;
        const [, leftEp] = await Promise.all([send(r, right), r.conns.endpoint(left)]);
        const from = await receive(r, 1);
        expect([...from.keys()]).toEqual([left]);
        expect(from.get(left)).toBe(leftEp);
        await sent(r, 1);
      }),
    );
    let total = 0;
    for (const r of job.ranks) {
      expect(r.conns.openConnections).toBeLessThanOrEqual(2);
      expect(r.ia.counters().connections).toBe(r.conns.openConnections);
      expect([...establishedByPeer(r).keys()].sort()).toEqual([(r.rank + size - 1) % size, (r.rank + 1) % size].sort());
      total += r.conns.openConnections;
    }
    expect(total).toBe(16);
    await job.close();
  });

  it('all-to-all with every rank starting at once: exactly 28 connections, one per pair', async () => {
    const size = 8;
    const job = await startJob(size);
    await Promise.all(
      job.ranks.map(async (r) => {
        const peers = job.ranks.map((p) => p.rank).filter((p) => p !== r.rank);
        await Promise.all(peers.map((p) => send(r, p)));
        const from = await receive(r, size - 1);
        expect([...from.keys()].sort()).toEqual(peers);
        await sent(r, size - 1);
      }),
    );
    let ends = 0;
    for (const r of job.ranks) {
      expect(r.conns.openConnections).toBe(size - 1);
      expect(r.ia.counters().connections).toBe(size - 1);
      // Every connection ever established on this rank: one per peer, none dropped as a duplicate.
      const byPeer = establishedByPeer(r);
      expect(byPeer.size).toBe(size - 1);
      for (const count of byPeer.values()) expect(count).toBe(1);
      for (let p = 0; p < size; p++) {
        if (p === r.rank) continue;
        expect(r.conns.peerOf(await r.conns.endpoint(p))).toBe(p);
      }
      ends += r.conns.openConnections;
    }
    expect(ends).toBe(56);
    expect(ends / 2).toBe(28);
    await job.close();
  });

  it('a pair calling endpoint() on each other in the same tick always ends with exactly one connection', async () => {
    const random = seededRandom(0x5eed);
    const size = 4;
    let reverseRequests = 0;
    for (let iteration = 0; iteration < 50; iteration++) {
      const job = await startJob(size);
      const calls: (() => Promise<Endpoint>)[] = [];
      for (let i = 0; i < size; i++) {
        for (let j = i + 1; j < size; j++) {
          const lower = job.ranks[i];
          const higher = job.ranks[j];
          const pair = [() => lower.conns.endpoint(j), () => higher.conns.endpoint(i)];
          if (random() < 0.5) pair.reverse();
          calls.push(...pair);
        }
      }
      // All in this tick, in a shuffled order, some a few microtasks late, to vary the interleaving.
      const started = calls.map(async (call) => {
        for (let hops = Math.floor(random() * 3); hops > 0; hops--) await Promise.resolve();
        return call();
      });
      await Promise.all(started);
      // Data both ways on every pair.
      await Promise.all(
        job.ranks.map(async (r) => {
          await Promise.all(job.ranks.filter((p) => p !== r).map((p) => send(r, p.rank)));
          await receive(r, size - 1);
          await sent(r, size - 1);
        }),
      );
      for (const r of job.ranks) {
        const byPeer = establishedByPeer(r);
        expect([...byPeer.values()], `iteration ${iteration}, rank ${r.rank}`).toEqual(new Array(size - 1).fill(1));
        expect(r.conns.openConnections).toBe(size - 1);
        expect(r.ia.counters().connections).toBe(size - 1);
        // Endpoints never established are the lower ranks' reverse requests (refused by design).
        reverseRequests += r.created.filter((ep) => ep.remoteAddress === undefined).length;
      }
      await job.close();
    }
    // The race really happened: lower ranks asked while their higher peers were already connecting.
    expect(reverseRequests).toBeGreaterThan(0);
  });

  it('calls prepare once per peer, before the connection, with the receive it posts getting the first message', async () => {
    const job = await startJob(4);
    await Promise.all(
      job.ranks.map(async (r) => {
        await Promise.all(job.ranks.filter((p) => p !== r).map((p) => send(r, p.rank)));
        await receive(r, 3); // checks each message landed in the buffer prepare posted
        await sent(r, 3);
      }),
    );
    for (const r of job.ranks) {
      expect([...r.prepared].sort()).toEqual([0, 1, 2, 3].filter((p) => p !== r.rank));
    }
    await job.close();
  });

  it('shares one attempt between concurrent endpoint() calls to the same peer', async () => {
    const job = await startJob(3);
    const first = job.ranks[2].conns.endpoint(0);
    const second = job.ranks[2].conns.endpoint(0);
    const fromLower = job.ranks[0].conns.endpoint(2);
    const [a, b, c] = await Promise.all([first, second, fromLower]);
    expect(a).toBe(b);
    expect(job.ranks[0].conns.peerOf(c)).toBe(2);
    expect(job.ranks[2].prepared).toEqual([0]);
    expect(job.ranks[0].prepared).toEqual([2]);
    expect(job.ranks[1].conns.openConnections).toBe(0);
    expect(await job.ranks[2].conns.endpoint(0)).toBe(a);
    await job.close();
  });

  it('forgets a connection that went away and reconnects on the next endpoint() call', async () => {
    const job = await startJob(2);
    const [r0, r1] = job.ranks;
    const old = await r1.conns.endpoint(0);
    expect(r0.conns.openConnections).toBe(1);
    old.disconnect();
    await waitFor(() => r0.conns.openConnections === 0 && r1.conns.openConnections === 0);
    // Flushed receives of the old endpoints arrive on the shared EVDs and are still attributable.
    const flushed = await r0.recv.wait({ timeoutMs: WAIT_MS });
    expect(flushed.type === 'dto-completion' && flushed.status).toBe(DtoStatus.FLUSHED);
    expect(flushed.type === 'dto-completion' && r0.conns.peerOf(flushed.ep)).toBe(1);
    await r1.recv.wait({ timeoutMs: WAIT_MS });

    const fresh = await r0.conns.endpoint(1); // the lower rank asks; the higher one reconnects
    expect(fresh).not.toBe(old);
    expect(r0.prepared).toEqual([1, 1]);
    await send(r0, 1);
    expect([...(await receive(r1, 1)).keys()]).toEqual([0]);
    expect(r0.conns.openConnections).toBe(1);
    expect(r1.conns.openConnections).toBe(1);
    await job.close();
  });

  it('close() disconnects gracefully: the peer counts the connection down, later calls fail', async () => {
    const job = await startJob(3);
    const [r0, r1, r2] = job.ranks;
    await Promise.all([r0.conns.endpoint(1), r0.conns.endpoint(2), r1.conns.endpoint(2)]);
    await r0.conns.close();
    expect(r0.conns.openConnections).toBe(0);
    await waitFor(() => r1.conns.openConnections === 1 && r2.conns.openConnections === 1);
    await expect(r0.conns.endpoint(1)).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
    // The closed rank's PSP is gone: a request to it fails at once, naming the peer.
    const error = await rejection(r1.conns.endpoint(0));
    expect(error.message).toContain('rank 0');
    await job.close();
  });

  it('a peer that dies is counted down and forgotten; asking for it again fails naming the peer', async () => {
    const job = await startJob(3);
    const [r0, r1, r2] = job.ranks;
    await Promise.all([r0.conns.endpoint(1), r0.conns.endpoint(2), r1.conns.endpoint(2)]);
    expect(job.ranks.map((r) => r.conns.openConnections)).toEqual([2, 2, 2]);
    await (r2.ia as LoopbackIa).crash();
    await waitFor(() => r0.conns.openConnections === 1 && r1.conns.openConnections === 1);
    for (const r of [r0, r1]) {
      // The receive prepare posted on the lost endpoint flushes, attributed to the dead peer.
      const flushed = await r.recv.wait({ timeoutMs: WAIT_MS });
      expect(flushed.type === 'dto-completion' && [flushed.status, r.conns.peerOf(flushed.ep)]).toEqual([DtoStatus.FLUSHED, 2]);
    }
    const error = await rejection(r0.conns.endpoint(2));
    expect(error.status).toBe(DatStatus.CONNECTION_BROKEN);
    expect(error.message).toContain('rank 2');
    expect(error.message).toContain('connection-unreachable');
    // The survivors still talk.
    await send(r0, 1);
    expect([...(await receive(r1, 1)).keys()]).toEqual([0]);
    await Promise.all([r0.conns.close(), r1.conns.close(), r2.conns.close()]);
    await Promise.all([r0.ia.close(), r1.ia.close()]);
  });

  it('close() after the IA was closed returns without waiting for disconnects', { timeout: 5_000 }, async () => {
    const provider = createLoopbackProvider();
    const runtimes = createLocalJob(2);
    const ias = await Promise.all(runtimes.map(() => provider.openIa()));
    const conns = await Promise.all(runtimes.map((rt, i) => startConnections(ias[i], rt, { connectTimeoutMs: 60_000 })));
    await conns[1].endpoint(0);
    await ias[0].close();
    await conns[0].close(); // would wait 60 s for a disconnect event that cannot come
    expect(conns[0].openConnections).toBe(0);
    await waitFor(() => conns[1].openConnections === 0);
    await conns[1].close();
    await ias[1].close();
  });

  it('rejects a bad peer with INVALID_PARAMETER naming `peer`', async () => {
    const job = await startJob(3);
    const conns = job.ranks[1].conns;
    for (const peer of [-1, 3, 1.5, Number.NaN, '0' as unknown as number]) {
      const error = await rejection(conns.endpoint(peer));
      expect(error.status).toBe(DatStatus.INVALID_PARAMETER);
      expect(error.argument).toBe('peer');
      expect(error.message).toContain('peer');
    }
    expect(conns.openConnections).toBe(0);
    await job.close();
  });

  it('a job of one talks to itself through a loopback connection to its own PSP', async () => {
    const provider = createLoopbackProvider();
    const ia = await provider.openIa();
    const prepared: number[] = [];
    const conns = await startConnections(ia, new SingletonRuntime(), { prepare: (_ep, peer) => prepared.push(peer) });
    const [a, b] = await Promise.all([conns.endpoint(0), conns.endpoint(0)]);
    expect(a).toBe(b);
    expect(conns.peerOf(a)).toBe(0);
    expect(conns.openConnections).toBe(1);
    expect(prepared).toEqual([0, 0]); // both ends, before they connect
    // Data sent on the active end arrives through the passive end, on the shared receive EVD.
    const data = new TextEncoder().encode('to myself');
    const into = new Uint8Array(32);
    const recvLmr = conns.pz.registerLmr(into, MemAccess.ALL);
    const sendLmr = conns.pz.registerLmr(data, MemAccess.LOCAL);
    const window = conns.pz.createRmr().bind(recvLmr, 0, 32, MemAccess.REMOTE_WRITE);
    a.postRdmaWrite([{ lmr: sendLmr, offset: 0, length: data.length }], 'w', window, { immediate: 9 });
    const doorbell = await conns.evds.recv.wait({ timeoutMs: WAIT_MS });
    expect(doorbell).toMatchObject({ type: 'dto-completion', op: 'recv-immediate', immediate: 9, transferredLength: data.length });
    expect(new TextDecoder().decode(into.subarray(0, data.length))).toBe('to myself');
    expect(conns.peerOf((doorbell as { ep: Endpoint }).ep)).toBe(0);
    await conns.close();
    expect(conns.openConnections).toBe(0);
    await ia.close();
  });
});

describe('Connections against a peer that never started the service', () => {
  /** Rank `rank` of `runtime`'s job "published" a PSP that nobody serves; returns its EVD. */
  async function deadRank(provider: LoopbackProvider, runtime: Runtime): Promise<{ ia: InterfaceAdapter; evd: EventDispatcher }> {
    const ia = await provider.openIa();
    const evd = ia.createEvd();
    const psp = await ia.createPspAny(evd);
    await runtime.put(`dapl-ep-${runtime.rank}`, encodeListenAddress({ address: ia.address, connQual: psp.connQual }));
    await runtime.fence();
    return { ia, evd };
  }

  it.each([
    ['the higher rank connecting to it', 1, 0],
    ['the lower rank asking it to connect', 0, 1],
  ])('%s rejects after connectTimeoutMs with a DatError naming the peer', async (_, live, dead) => {
    const provider = createLoopbackProvider();
    const runtimes = createLocalJob(2);
    const ia = await provider.openIa();
    const [conns, silent] = await Promise.all([startConnections(ia, runtimes[live], { connectTimeoutMs: 150 }), deadRank(provider, runtimes[dead])]);
    const error = await rejection(conns.endpoint(dead));
    expect(error.status).toBe(DatStatus.TIMEOUT_EXPIRED);
    expect(error.argument).toBe('peer');
    expect(error.message).toContain(`rank ${dead}`);
    expect(silent.evd.size).toBe(1); // the request did arrive; nobody answered
    expect(conns.openConnections).toBe(0);
    await conns.close();
    await Promise.all([ia.close(), silent.ia.close()]);
  });

  it('an unexpected rejection fails endpoint() naming the peer and the event; a later call retries', async () => {
    const provider = createLoopbackProvider();
    const runtimes = createLocalJob(2);
    const ia = await provider.openIa();
    const [conns, fake] = await Promise.all([startConnections(ia, runtimes[1], { connectTimeoutMs: 2_000 }), deadRank(provider, runtimes[0])]);
    const first = conns.endpoint(0);
    const request = await fake.evd.wait({ timeoutMs: WAIT_MS });
    if (request.type !== 'connection-request') throw new Error(`expected a connection request, got ${request.type}`);
    expect(decodeWiringRequest(request.request.privateData)).toEqual({ kind: 'connect', rank: 1 });
    request.request.reject();
    const error = await rejection(first);
    expect(error.status).toBe(DatStatus.CONNECTION_BROKEN);
    expect(error.argument).toBe('peer');
    expect(error.message).toContain('rank 0');
    expect(error.message).toContain('connection-peer-rejected');

    const second = conns.endpoint(0);
    const again = await fake.evd.wait({ timeoutMs: WAIT_MS });
    if (again.type !== 'connection-request') throw new Error(`expected a connection request, got ${again.type}`);
    const fakeEp = fake.ia.createEp(fake.ia.createPz(), { recv: fake.evd, request: fake.evd, connect: fake.evd });
    again.request.accept(fakeEp);
    const ep = await second;
    expect(conns.peerOf(ep)).toBe(0);
    expect(conns.openConnections).toBe(1);
    await conns.close();
    await Promise.all([ia.close(), fake.ia.close()]);
  });

  it('rejects malformed, out-of-range, misdirected and duplicate requests, and keeps working', async () => {
    const job = await startJob(3);
    const [r0, , r2] = job.ranks;
    await r2.conns.endpoint(0); // the real connection 2 -> 0
    const listen0 = decodeListenAddress(await r0.runtime.get('dapl-ep-0'), 'dapl-ep-0');
    const listen2 = decodeListenAddress(await r2.runtime.get('dapl-ep-2'), 'dapl-ep-2');
    const intruder = await job.provider.openIa();
    const cases: [string, typeof listen0, Uint8Array][] = [
      ['garbage', listen0, new Uint8Array([1, 2, 3])],
      ['wrong magic', listen0, new Uint8Array([0, 1, 1, 0, 0, 0, 2])],
      ['rank outside the job', listen0, encodeWiringRequest({ kind: 'connect', rank: 3 })],
      ['rank 0 to itself', listen0, encodeWiringRequest({ kind: 'connect', rank: 0 })],
      ['duplicate connect while established', listen0, encodeWiringRequest({ kind: 'connect', rank: 2 })],
      ['connect from a lower rank', listen2, encodeWiringRequest({ kind: 'connect', rank: 1 })],
      ['reverse from a higher rank', listen0, encodeWiringRequest({ kind: 'reverse', rank: 1 })],
    ];
    for (const [what, listen, privateData] of cases) {
      const evd = intruder.createEvd();
      const ep = intruder.createEp(intruder.createPz(), { recv: evd, request: evd, connect: evd });
      ep.connect(listen.address, listen.connQual, { privateData, timeoutMs: WAIT_MS });
      const answer = await evd.wait({ timeoutMs: WAIT_MS });
      expect(answer.type, what).toBe('connection-peer-rejected');
    }
    expect(r0.conns.openConnections).toBe(1);
    expect(r2.conns.openConnections).toBe(1);
    // Still serving: the remaining pairs connect and carry data.
    await Promise.all(job.ranks.map((r) => Promise.all(job.ranks.filter((p) => p !== r).map((p) => send(r, p.rank)))));
    await Promise.all(job.ranks.map((r) => receive(r, 2)));
    for (const r of job.ranks) expect(r.conns.openConnections).toBe(2);
    await intruder.close();
    await job.close();
  });
});

describe('startConnections', () => {
  it('publishes <address>#<connQual> under <prefix>-<rank> and refuses bad options', async () => {
    const provider = createLoopbackProvider();
    const [runtime] = createLocalJob(1);
    const ia = await provider.openIa();
    const conns = await startConnections(ia, runtime, { keyPrefix: 'my-eps' });
    const published = decodeListenAddress(await runtime.get('my-eps-0'), 'my-eps-0');
    expect(published.address).toBe(ia.address);
    expect(typeof published.connQual).toBe('number');
    await conns.close();
    await expect(startConnections(ia, runtime, { keyPrefix: 'a b' })).rejects.toMatchObject({ argument: 'options.keyPrefix' });
    await expect(startConnections(ia, runtime, { connectTimeoutMs: 0 })).rejects.toMatchObject({ argument: 'options.connectTimeoutMs' });
    await expect(startConnections(ia, runtime, { prepare: 3 as never })).rejects.toMatchObject({ argument: 'options.prepare' });
    await ia.close();
  });
});

