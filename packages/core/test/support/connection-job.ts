/** An in-process job over the loopback provider, for the Connections tests. */
import { expect } from 'vitest';
import { EpState, type Endpoint } from '../../src/dat/endpoint.js';
import type { EventDispatcher } from '../../src/dat/evd.js';
import type { DtoCompletionEvent } from '../../src/dat/events.js';
import type { InterfaceAdapter } from '../../src/dat/ia.js';
import { MemAccess } from '../../src/dat/memory.js';
import type { ProtectionZone } from '../../src/dat/pz.js';
import { DtoStatus } from '../../src/dat/status.js';
import { startConnections, type Connections } from '../../src/runtime/connections/index.js';
import { createLocalJob } from '../../src/runtime/local-job.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createLoopbackProvider, type LoopbackProvider } from '../../src/testing/loopback/index.js';

/** Poll a condition the event loop will make true, failing (not hanging) after WAIT_MS. */
export async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

export const WAIT_MS = 5_000;
export const MESSAGE_BYTES = 16;

/** One rank: its IA, shared EVDs, service, and what the test saw. */
export interface TestRank {
  readonly rank: number;
  readonly runtime: Runtime;
  readonly ia: InterfaceAdapter;
  readonly pz: ProtectionZone;
  readonly recv: EventDispatcher;
  readonly request: EventDispatcher;
  readonly conns: Connections;
  /** Every endpoint the service created on this IA (peer and reverse ones). */
  readonly created: Endpoint[];
  /** Peers `prepare` was called for, in call order. */
  readonly prepared: number[];
  /** The receive buffer `prepare` pre-posted on each endpoint. */
  readonly recvBuffers: Map<Endpoint, Uint8Array>;
}

export interface TestJob {
  readonly provider: LoopbackProvider;
  readonly ranks: TestRank[];
  close(): Promise<void>;
}

/** An IA whose `createEp` records what it made (to count every connection ever established). */
function recordingIa(ia: InterfaceAdapter, created: Endpoint[]): InterfaceAdapter {
  return new Proxy(ia, {
    get(target, key) {
      if (key === 'createEp') {
        return (...args: Parameters<InterfaceAdapter['createEp']>) => {
          const ep = target.createEp(...args);
          created.push(ep);
          return ep;
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export async function startJob(size: number, options: { connectTimeoutMs?: number } = {}): Promise<TestJob> {
  const provider = createLoopbackProvider();
  // Every rank opens its IA and starts its service at once: startConnections is collective.
  const ranks = await Promise.all(
    createLocalJob(size).map(async (runtime): Promise<TestRank> => {
      const created: Endpoint[] = [];
      const ia = recordingIa(await provider.openIa(), created);
      const pz = ia.createPz();
      const recv = ia.createEvd();
      const request = ia.createEvd();
      const prepared: number[] = [];
      const recvBuffers = new Map<Endpoint, Uint8Array>();
      const prepare = (ep: Endpoint, peer: number): void => {
        // Called before the connection exists: the receive posted here must get the first message.
        expect(ep.state).toBe(EpState.UNCONNECTED);
        prepared.push(peer);
        const bytes = new Uint8Array(MESSAGE_BYTES * 2);
        recvBuffers.set(ep, bytes);
        ep.postRecv([{ lmr: pz.registerLmr(bytes, MemAccess.LOCAL), offset: 0, length: bytes.length }], `from-${peer}`);
      };
      const conns = await startConnections(ia, runtime, { pz, evds: { recv, request }, prepare, connectTimeoutMs: options.connectTimeoutMs });
      return { rank: runtime.rank, runtime, ia, pz, recv, request, conns, created, prepared, recvBuffers };
    }),
  );
  return {
    provider,
    ranks,
    async close() {
      await Promise.all(ranks.map((r) => r.conns.close()));
      for (const r of ranks) expect(r.conns.openConnections).toBe(0);
      await Promise.all(ranks.map((r) => r.ia.close()));
    },
  };
}

/** The bytes rank `from` sends to rank `to`: checkable at the receiver. */
export function message(from: number, to: number): Uint8Array {
  const bytes = new Uint8Array(MESSAGE_BYTES);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (from * 31 + to * 7 + i * 13) & 0xff;
  bytes[0] = from;
  bytes[1] = to;
  return bytes;
}

/** Send `message(r.rank, to)` through the service's endpoint to `to`. */
export async function send(r: TestRank, to: number): Promise<Endpoint> {
  const ep = await r.conns.endpoint(to);
  const bytes = message(r.rank, to);
  ep.postSend([{ lmr: r.pz.registerLmr(bytes, MemAccess.LOCAL), offset: 0, length: bytes.length }], `to-${to}`);
  return ep;
}

export async function nextCompletion(evd: EventDispatcher): Promise<DtoCompletionEvent> {
  const event = await evd.wait({ timeoutMs: WAIT_MS });
  if (event.type !== 'dto-completion') throw new Error(`expected a DTO completion, got ${event.type}`);
  return event;
}

/**
 * Take `count` receive completions from `r`'s shared receive EVD; each must carry the message of
 * the peer that `peerOf` names. Returns the senders, with the endpoint each arrived on.
 */
export async function receive(r: TestRank, count: number): Promise<Map<number, Endpoint>> {
  const from = new Map<number, Endpoint>();
  for (let i = 0; i < count; i++) {
    const event = await nextCompletion(r.recv);
    expect(event.op).toBe('recv');
    expect(event.status).toBe(DtoStatus.SUCCESS);
    expect(event.transferredLength).toBe(MESSAGE_BYTES);
    const peer = r.conns.peerOf(event.ep);
    expect(peer).toBeTypeOf('number');
    expect(event.cookie).toBe(`from-${peer}`);
    expect([...r.recvBuffers.get(event.ep)!.subarray(0, MESSAGE_BYTES)]).toEqual([...message(peer!, r.rank)]);
    expect(from.has(peer!)).toBe(false);
    from.set(peer!, event.ep);
  }
  return from;
}

/** Take `count` successful send completions from `r`'s shared request EVD. */
export async function sent(r: TestRank, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const event = await nextCompletion(r.request);
    expect(event.op).toBe('send');
    expect(event.status).toBe(DtoStatus.SUCCESS);
  }
}

/** Connections ever established on this rank, by peer (reverse endpoints never are). */
export function establishedByPeer(r: TestRank): Map<number, number> {
  const counts = new Map<number, number>();
  for (const ep of r.created) {
    if (ep.remoteAddress === undefined) continue;
    const peer = r.conns.peerOf(ep);
    expect(peer).toBeTypeOf('number');
    counts.set(peer!, (counts.get(peer!) ?? 0) + 1);
  }
  return counts;
}
