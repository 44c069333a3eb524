import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatError, type DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { PmiRuntime, type PmiRuntimeOptions } from '../src/runtime/pmi/pmi-runtime.js';
import { PmiServer, type PmiServerOptions } from '../src/runtime/pmi/pmi-server.js';
import { WallClock } from '../src/runtime/wall-clock.js';
import { FakePmiServer, type FakeReply } from './fixtures/pmi/fake-server.js';
import { memoryPair, socketPair } from './fixtures/pmi/stream-pair.js';

const servers: PmiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A PmiServer and `size` PmiRuntimes connected to it over real TCP socket pairs. */
async function startJob(size: number, serverOptions: Partial<PmiServerOptions> = {}, clientOptions: PmiRuntimeOptions = {}): Promise<{ server: PmiServer; ranks: PmiRuntime[] }> {
  const server = new PmiServer({ size, ...serverOptions });
  servers.push(server);
  const ranks = await Promise.all(
    Array.from({ length: size }, async (_, rank) => {
      const [client, peer] = await socketPair();
      server.attach(peer, rank);
      return PmiRuntime.overStream(client, { rank, size }, clientOptions);
    }),
  );
  return { server, ranks };
}

async function rejection(promise: Promise<unknown>): Promise<DatError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isDatError(error)) throw new Error(`expected a DatError, got ${String(error)}`);
  return error;
}

describe('PmiRuntime with PmiServer, end to end', () => {
  it('puts, fences and gets across 4 ranks', async () => {
    const { server, ranks } = await startJob(4, { kvsName: 'kvs_test_1', appnum: 2 });
    expect(ranks.map((r) => [r.rank, r.size])).toEqual([[0, 4], [1, 4], [2, 4], [3, 4]]);
    expect(ranks[0].kvsName).toBe('kvs_test_1');
    expect(ranks[0].appnum).toBe(2);
    expect(ranks[0].limits).toEqual({ kvsnameMax: 256, keylenMax: 64, vallenMax: 1024 });
    expect(ranks[0].clock).toBeInstanceOf(WallClock);
    expect(server.kvsName).toBe('kvs_test_1');
    await Promise.all(ranks.map((r) => r.put(`addr-${r.rank}`, `tcp://127.0.0.1:${4000 + r.rank}?a=b`)));
    await Promise.all(ranks.map((r) => r.fence()));
    const seen = await Promise.all(ranks.map((r) => Promise.all(ranks.map((peer) => r.get(`addr-${peer.rank}`)))));
    for (const row of seen) expect(row).toEqual([0, 1, 2, 3].map((i) => `tcp://127.0.0.1:${4000 + i}?a=b`));
    await Promise.all(ranks.map((r) => r.finalize()));
  });

  it('reuses the barrier 10 times; each round sees exactly the puts made before it', async () => {
    const { ranks } = await startJob(4);
    for (let round = 0; round < 10; round++) {
      await Promise.all(ranks.map((r) => r.put(`round-${round}-${r.rank}`, `v${round}.${r.rank}`)));
      await Promise.all(ranks.map((r) => r.barrier()));
      const values = await Promise.all(ranks.map((r) => r.get(`round-${round}-${(r.rank + 1) % 4}`)));
      expect(values).toEqual([1, 2, 3, 0].map((peer) => `v${round}.${peer}`));
    }
    const missing = await rejection(ranks[0].get('round-10-1'));
    expect(missing.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(missing.argument).toBe('key');
    expect(missing.message).toContain('"round-10-1"');
    expect(missing.message).toContain('not found');
  });

  it('serialises concurrent puts and gets from one rank', async () => {
    const { ranks } = await startJob(1);
    const [rank] = ranks;
    await Promise.all(Array.from({ length: 50 }, (_, i) => rank.put(`k${i}`, `v${i}`)));
    const values = await Promise.all(Array.from({ length: 50 }, (_, i) => rank.get(`k${i}`)));
    expect(values).toEqual(Array.from({ length: 50 }, (_, i) => `v${i}`));
  });

  it('abort reaches onAbort with the code, also while the rank waits in a barrier', async () => {
    const aborts: [number, number][] = [];
    const exits: number[] = [];
    const written: string[] = [];
    const { ranks } = await startJob(3, { onAbort: (rank, code) => aborts.push([rank, code]) }, { exit: (code) => exits.push(code), writeError: (t) => written.push(t) });
    const waiting = rejection(ranks[1].barrier());
    const error = await rejection(ranks[1].abort(7, 'out of memory'));
    expect(error.status).toBe(DatStatus.ABORT);
    expect(exits).toEqual([7]);
    expect(written).toEqual(['dapl: rank 1 aborting the job (exit code 7): out of memory\n']);
    await expect.poll(() => aborts).toEqual([[1, 7]]);
    // The barrier can never complete: rank 1 left it. The other waiters learn it too.
    const [w1, w0] = await Promise.all([waiting, rejection(ranks[0].barrier())]);
    expect(w1.status).toBe(DatStatus.CONNECTION_BROKEN);
    expect(w0.message).toContain('rank_1_aborted');
    await expect(ranks[0].abort(300, 'x')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'code' });
  });

  it('finalize waits for finalize_ack; later calls are refused', async () => {
    const finalized: number[] = [];
    const disconnected: number[] = [];
    const { ranks } = await startJob(2, { onFinalize: (rank) => finalized.push(rank), onDisconnect: (rank) => disconnected.push(rank) });
    await ranks[0].finalize();
    expect(finalized).toEqual([0]);
    await ranks[0].finalize();
    await expect(ranks[0].put('k', 'v')).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
    await expect(ranks[0].barrier()).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
    // Rank 1 cannot meet rank 0 in a barrier any more: told at once, not left waiting.
    const error = await rejection(ranks[1].barrier());
    expect(error.message).toContain('rank_0_finalized');
    await ranks[1].finalize();
    expect(finalized).toEqual([0, 1]);
    expect(disconnected).toEqual([]);
  });

  it('joins through PMI_PORT: initack gives rank and size', async () => {
    const server = new PmiServer({ size: 2 });
    servers.push(server);
    const port = await server.listen();
    const ranks = await Promise.all(['1', '0'].map((id) => PmiRuntime.connect({ PMI_PORT: `127.0.0.1:${port}`, PMI_ID: id })));
    expect(ranks.map((r) => [r.rank, r.size])).toEqual([[1, 2], [0, 2]]);
    await Promise.all(ranks.map((r) => r.put(`id-${r.rank}`, String(r.rank * 10))));
    await Promise.all(ranks.map((r) => r.fence()));
    expect(await ranks[1].get('id-0')).toBe('0');
    expect(await ranks[0].get('id-1')).toBe('10');
    await Promise.all(ranks.map((r) => r.finalize()));
  });
});

/** A PmiRuntime talking to a FakePmiServer over an in-memory pair. */
async function fakeJob(respond: (cmd: string, line: string) => FakeReply, handshake: Record<string, FakeReply> = {}, options: PmiRuntimeOptions = {}): Promise<{ runtime: PmiRuntime; fake: FakePmiServer; serverEnd: Duplex }> {
  const [client, serverEnd] = memoryPair();
  const fake = new FakePmiServer(serverEnd, respond, handshake);
  const runtime = await PmiRuntime.overStream(client, { rank: 0, size: 1 }, options);
  return { runtime, fake, serverEnd };
}

describe('PmiRuntime: limits and wire rules are checked before sending', () => {
  it('refuses a 65-character key, a 1024-character value and a value with a space; sends nothing', async () => {
    const { runtime, fake } = await fakeJob(() => ['cmd=put_result rc=0 msg=success']);
    const sentBefore = fake.received.length;
    const longKey = await rejection(runtime.put('k'.repeat(65), 'v'));
    expect(longKey).toMatchObject({ status: DatStatus.LENGTH_ERROR, argument: 'key' });
    expect(longKey.message).toContain('65 bytes');
    expect(longKey.message).toContain('at most 64');
    const longValue = await rejection(runtime.put('k', 'v'.repeat(1024)));
    expect(longValue).toMatchObject({ status: DatStatus.LENGTH_ERROR, argument: 'value' });
    expect(longValue.message).toContain('1024 bytes');
    expect(longValue.message).toContain('at most 1023');
    await expect(runtime.put('k', 'two words')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'value' });
    await expect(runtime.put('a=b', 'v')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'key' });
    await expect(runtime.put('', 'v')).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'key' });
    await expect(runtime.get('k'.repeat(65))).rejects.toMatchObject({ status: DatStatus.LENGTH_ERROR, argument: 'key' });
    expect(fake.received.length).toBe(sentBefore);
    // The largest legal ones go through.
    await runtime.put('k'.repeat(64), 'v'.repeat(1023));
    expect(fake.received.at(-1)).toBe(`cmd=put kvsname=kvs_fake key=${'k'.repeat(64)} value=${'v'.repeat(1023)}`);
    expect(fake.overlapped).toBe(false);
  });

  it('sends one request at a time, even when calls are made concurrently', async () => {
    const { runtime, fake } = await fakeJob((cmd, line) => (cmd === 'put' ? ['cmd=put_result rc=0 msg=success'] : [`cmd=get_result rc=0 msg=success value=${/key=(\S+)/.exec(line)?.[1]}`]));
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? runtime.put(`k${i}`, 'v') : runtime.get(`k${i}`))));
    expect(results.filter((r) => r !== undefined)).toEqual(Array.from({ length: 10 }, (_, i) => `k${2 * i + 1}`));
    expect(fake.received.slice(-20).map((l) => /key=(\S+)/.exec(l)?.[1])).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`));
    expect(fake.overlapped).toBe(false);
  });

  it('uses the limits the server announces', async () => {
    const { runtime } = await fakeJob(() => ['cmd=put_result rc=0 msg=success'], { get_maxes: ['cmd=maxes kvsname_max=256 keylen_max=8 vallen_max=16'] });
    expect(runtime.limits).toEqual({ kvsnameMax: 256, keylenMax: 8, vallenMax: 16 });
    await runtime.put('k'.repeat(8), 'v'.repeat(15));
    await expect(runtime.put('k'.repeat(9), 'v')).rejects.toMatchObject({ status: DatStatus.LENGTH_ERROR });
    await expect(runtime.put('k', 'v'.repeat(16))).rejects.toMatchObject({ status: DatStatus.LENGTH_ERROR });
  });
});

describe('PmiRuntime: a server that misbehaves', () => {
  it('a garbage reply rejects the call naming the command; later calls reject too', async () => {
    const { runtime } = await fakeJob(() => ['this is not pmi']);
    const error = await rejection(runtime.put('k', 'v'));
    expect(error.status).toBe(DatStatus.INTERNAL_ERROR);
    expect(error.message).toContain('PMI put');
    expect(error.message).toContain('malformed');
    const later = await rejection(runtime.get('k'));
    expect(later.message).toContain('PMI get');
    expect(later.message).toContain('failed earlier');
  });

  it('a reply with the wrong cmd rejects, naming what arrived and what was expected', async () => {
    const { runtime } = await fakeJob(() => ['cmd=barrier_out']);
    const error = await rejection(runtime.put('k', 'v'));
    expect(error.status).toBe(DatStatus.INTERNAL_ERROR);
    expect(error.message).toContain('"cmd=barrier_out"');
    expect(error.message).toContain('expected cmd=put_result');
  });

  it('put rc=-1 rejects that put, naming the command and the key', async () => {
    const { runtime } = await fakeJob((cmd) => (cmd === 'put' ? ['cmd=put_result rc=-1 msg=duplicate'] : ['cmd=barrier_out']));
    const error = await rejection(runtime.put('addr-0', 'v'));
    expect(error).toMatchObject({ status: DatStatus.INTERNAL_ERROR, argument: 'key' });
    expect(error.message).toContain('PMI put of key "addr-0" failed');
    expect(error.message).toContain('rc=-1 msg=duplicate');
    await runtime.barrier();
  });

  it('replies without rc or value are malformed and fail the connection', async () => {
    const noRc = await fakeJob(() => ['cmd=put_result msg=success']);
    expect((await rejection(noRc.runtime.put('k', 'v'))).message).toContain('no integer rc');
    await expect(noRc.runtime.barrier()).rejects.toMatchObject({ status: DatStatus.INTERNAL_ERROR });
    const noValue = await fakeJob(() => ['cmd=get_result rc=0 msg=success']);
    expect((await rejection(noValue.runtime.get('k'))).message).toContain('rc=0 but no value');
  });

  it('a truncated reply and then a closed socket reject with CONNECTION_BROKEN', async () => {
    const { runtime, serverEnd } = await fakeJob(() => ({ raw: 'cmd=get_result rc=0 msg=succ' }));
    const pending = rejection(runtime.get('k'));
    setTimeout(() => serverEnd.destroy(), 20);
    const error = await pending;
    expect(error.status).toBe(DatStatus.CONNECTION_BROKEN);
    expect(error.message).toContain('PMI get');
    expect(error.message).toContain('middle of a reply');
  });

  it('closing the server socket rejects every pending call (nothing hangs)', async () => {
    const { runtime, fake, serverEnd } = await fakeJob(() => 'silent');
    const calls = [runtime.barrier(), runtime.get('a'), runtime.put('b', 'c')].map(rejection);
    await expect.poll(() => fake.received.at(-1)).toBe('cmd=barrier_in');
    serverEnd.destroy();
    const errors = await Promise.all(calls);
    expect(errors.map((e) => e.status)).toEqual([DatStatus.CONNECTION_BROKEN, DatStatus.CONNECTION_BROKEN, DatStatus.CONNECTION_BROKEN]);
    expect(errors.map((e) => /PMI (\w+)/.exec(e.message)?.[1])).toEqual(['barrier_in', 'get', 'put']);
    // Only the first was sent: requests wait for the previous reply.
    expect(fake.received.filter((l) => !/init|maxes|appnum|kvsname/.test(l))).toEqual(['cmd=barrier_in']);
    await expect(runtime.get('x')).rejects.toMatchObject({ status: DatStatus.CONNECTION_BROKEN });
  });

  it('a line nobody asked for fails the connection', async () => {
    const { runtime, serverEnd } = await fakeJob(() => 'silent');
    serverEnd.write('cmd=barrier_out\n');
    await expect.poll(async () => (await rejection(runtime.barrier())).message).toContain('while no request was waiting');
  });

  it('a silent server times out when a reply timeout is set', async () => {
    const { runtime } = await fakeJob(() => 'silent', {}, { replyTimeoutMs: 50 });
    const error = await rejection(runtime.get('k'));
    expect(error.status).toBe(DatStatus.TIMEOUT_EXPIRED);
    expect(error.message).toContain('within 50 ms');
  });

  it('the handshake fails on init rc=-1, a malformed maxes, or a closed connection', async () => {
    const [c1, s1] = memoryPair();
    new FakePmiServer(s1, () => 'silent', { init: ['cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1'] });
    expect((await rejection(PmiRuntime.overStream(c1, { rank: 0, size: 1 }))).message).toContain('PMI init: the PMI server refused init');
    const [c2, s2] = memoryPair();
    new FakePmiServer(s2, () => 'silent', { get_maxes: ['cmd=maxes kvsname_max=256 keylen_max=x vallen_max=1024'] });
    expect((await rejection(PmiRuntime.overStream(c2, { rank: 0, size: 1 }))).message).toContain('PMI get_maxes: malformed reply');
    const [c3, s3] = memoryPair();
    new FakePmiServer(s3, () => 'silent', { get_appnum: 'close' });
    expect((await rejection(PmiRuntime.overStream(c3, { rank: 0, size: 1 }))).status).toBe(DatStatus.CONNECTION_BROKEN);
    const [c4, s4] = memoryPair();
    new FakePmiServer(s4, () => 'silent', { initack: ['cmd=initack', 'cmd=set size=2', 'cmd=set rank=5', 'cmd=set debug=0'] });
    expect((await rejection(PmiRuntime.overStream(c4, { pmiId: 5 }))).message).toContain('PMI initack: malformed reply');
    await expect(PmiRuntime.overStream(memoryPair()[0], { rank: 2, size: 2 })).rejects.toMatchObject({ argument: 'rank' });
  });
});
