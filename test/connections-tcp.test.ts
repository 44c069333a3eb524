// On-demand wiring over real TCP sockets: 8 ranks in one process (createLocalJob for the KVS),
// one tcp IA each. Ring traffic opens at most 2 connections per rank; all-to-all opens exactly
// 28 for the job, never two for one pair, even when every pair connects from both ends at once.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalJob, DtoStatus, MemAccess, startConnections, type Connections, type InterfaceAdapter } from '@dapl/core';
import { tcpProvider } from '@dapl/provider-tcp';

const SIZE = 8;

interface Rank {
  readonly rank: number;
  readonly ia: InterfaceAdapter;
  readonly conns: Connections;
}

async function startRanks(): Promise<Rank[]> {
  const jobKey = randomBytes(32);
  const runtimes = createLocalJob(SIZE);
  return Promise.all(
    runtimes.map(async (runtime) => {
      const ia = await tcpProvider.openIa({ jobKey });
      return { rank: runtime.rank, ia, conns: await startConnections(ia, runtime) };
    }),
  );
}

/** Send `from`'s rank number to `to` and check it arrives: real data over the connection. */
async function exchange(from: Rank, to: Rank): Promise<void> {
  const inbox = new Uint8Array(4);
  const inboxLmr = to.conns.pz.registerLmr(inbox, MemAccess.LOCAL);
  const receiver = await to.conns.endpoint(from.rank);
  receiver.postRecv([{ lmr: inboxLmr, offset: 0, length: 4 }], `from-${from.rank}`);
  const out = new Uint8Array(new Uint32Array([from.rank + 1000]).buffer);
  const outLmr = from.conns.pz.registerLmr(out, MemAccess.LOCAL);
  (await from.conns.endpoint(to.rank)).postSend([{ lmr: outLmr, offset: 0, length: 4 }], 'send');
  for (;;) {
    const e = await to.conns.evds.recv.wait({ timeoutMs: 10_000 });
    if (e.type === 'dto-completion' && e.cookie === `from-${from.rank}`) {
      expect(e.status).toBe(DtoStatus.SUCCESS);
      break;
    }
  }
  expect(new Uint32Array(inbox.buffer)[0]).toBe(from.rank + 1000);
}

describe('Connections over tcp, 8 ranks', () => {
  let ranks: Rank[] = [];
  afterEach(async () => {
    await Promise.all(ranks.map((r) => r.conns.close()));
    await Promise.all(ranks.map((r) => r.ia.close()));
    ranks = [];
  });

  it('ring neighbours only: at most 2 connections per rank, 8 in the job', async () => {
    ranks = await startRanks();
    await Promise.all(ranks.map((r) => exchange(r, ranks[(r.rank + 1) % SIZE])));
    for (const r of ranks) {
      expect(r.conns.openConnections).toBeLessThanOrEqual(2);
      expect(r.ia.counters().connections).toBe(r.conns.openConnections);
    }
    expect(ranks.reduce((n, r) => n + r.conns.openConnections, 0)).toBe(2 * SIZE);
  });

  it('all to all, every pair connecting from both ends at once: exactly 28 connections, one per pair', async () => {
    ranks = await startRanks();
    // Both ends of every pair ask for the endpoint in the same tick: the race the scheme must survive.
    await Promise.all(ranks.flatMap((r) => ranks.filter((p) => p !== r).map((p) => r.conns.endpoint(p.rank))));
    await Promise.all(ranks.flatMap((r) => ranks.filter((p) => p.rank > r.rank).map((p) => exchange(r, p))));
    for (const r of ranks) expect(r.conns.openConnections).toBe(SIZE - 1);
    const ends = ranks.reduce((n, r) => n + r.ia.counters().connections, 0);
    expect(ends / 2).toBe((SIZE * (SIZE - 1)) / 2);
  });
});
