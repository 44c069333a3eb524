import net from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { PmiServer, type PmiServerOptions } from '../src/runtime/pmi/pmi-server.js';
import { LineCollector, memoryPair, socketPair } from './fixtures/pmi/stream-pair.js';

const servers: PmiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface RawRank {
  readonly stream: Duplex;
  readonly replies: LineCollector;
  /** Sends lines and waits until `expect` replies in total have arrived (or the stream closed). */
  say(lines: string, expect?: number): Promise<string[]>;
}

/** A server and raw clients (we write the protocol by hand) over in-memory pairs. */
function rawJob(size: number, options: Partial<PmiServerOptions> = {}): { server: PmiServer; ranks: RawRank[]; events: string[] } {
  const events: string[] = [];
  const server = new PmiServer({
    size,
    kvsName: 'kvs_t',
    onAbort: (rank, code) => events.push(`abort ${rank} ${code}`),
    onFinalize: (rank) => events.push(`finalize ${rank}`),
    onProtocolError: (rank, message) => events.push(`protocol-error ${rank}: ${message}`),
    onDisconnect: (rank) => events.push(`disconnect ${rank}`),
    ...options,
  });
  servers.push(server);
  const ranks = Array.from({ length: size }, (_, rank): RawRank => {
    const [client, serverEnd] = memoryPair();
    server.attach(serverEnd, rank);
    const replies = new LineCollector(client);
    return {
      stream: client,
      replies,
      async say(lines, expect = replies.lines.length + 1) {
        client.write(lines.endsWith('\n') ? lines : `${lines}\n`);
        await replies.waitFor(expect);
        return replies.lines;
      },
    };
  });
  return { server, ranks, events };
}

describe('PmiServer replies as Hydra does', () => {
  it('answers init, get_maxes, get_appnum, get_my_kvsname, get_universe_size, put, get and finalize', async () => {
    const { ranks, events } = rawJob(1, { appnum: 4, limits: { keylenMax: 32 } });
    const [r] = ranks;
    expect(await r.say('cmd=init pmi_version=1 pmi_subversion=1')).toEqual(['cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0']);
    await r.say('cmd=get_maxes');
    await r.say('cmd=get_appnum');
    await r.say('cmd=get_my_kvsname');
    await r.say('cmd=get_universe_size');
    await r.say('cmd=put kvsname=kvs_t key=addr-0 value=tcp://h:1?x=y');
    await r.say('cmd=get kvsname=kvs_t key=addr-0');
    await r.say('cmd=get kvsname=kvs_t key=no-such-key');
    await r.say('cmd=finalize');
    expect(r.replies.lines.slice(1)).toEqual([
      'cmd=maxes kvsname_max=256 keylen_max=32 vallen_max=1024',
      'cmd=appnum appnum=4',
      'cmd=my_kvsname kvsname=kvs_t',
      'cmd=universe_size size=1',
      'cmd=put_result rc=0 msg=success',
      'cmd=get_result rc=0 msg=success value=tcp://h:1?x=y',
      'cmd=get_result rc=-1 msg=key_no-such-key_not_found value=unknown',
      'cmd=finalize_ack',
    ]);
    expect(events).toEqual(['finalize 0']);
  });

  it('refuses, with rc=-1, what Hydra would cut silently: long keys and values, a wrong kvsname, an old version', async () => {
    const { ranks } = rawJob(1);
    const [r] = ranks;
    await r.say(`cmd=put kvsname=kvs_t key=${'k'.repeat(65)} value=v`);
    await r.say(`cmd=put kvsname=kvs_t key=k value=${'v'.repeat(1024)}`);
    await r.say('cmd=put kvsname=other key=k value=v');
    await r.say('cmd=put kvsname=kvs_t key=a=b value=v');
    await r.say('cmd=init pmi_version=2 pmi_subversion=0');
    await r.say(`cmd=put kvsname=kvs_t key=${'k'.repeat(64)} value=${'v'.repeat(1023)}`);
    const [longKey, longValue, wrongKvs, keyWithEq, init, largest] = r.replies.lines;
    expect(longKey).toMatch(/^cmd=put_result rc=-1 msg=\S*65_bytes\S*at_most_64/);
    expect(longValue).toMatch(/^cmd=put_result rc=-1 msg=\S*1024_bytes\S*at_most_1023/);
    expect(wrongKvs).toBe('cmd=put_result rc=-1 msg=kvsname_other_not_found');
    expect(keyWithEq).toMatch(/^cmd=put_result rc=-1 msg=KVS_key_"a=b"_is_not_allowed/);
    expect(init).toBe('cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1');
    expect(largest).toBe('cmd=put_result rc=0 msg=success');
  });

  it('bounds the KVS (maxKvsKeys): a put of a new key beyond it is refused with rc=-1, the job goes on, and the keys in it can still be read and overwritten', async () => {
    const { ranks, events } = rawJob(2, { maxKvsKeys: 2 });
    const [r0, r1] = ranks;
    await r0.say('cmd=put kvsname=kvs_t key=a value=1');
    await r1.say('cmd=put kvsname=kvs_t key=b value=2');
    expect((await r0.say('cmd=put kvsname=kvs_t key=c value=3')).at(-1)).toBe('cmd=put_result rc=-1 msg=the_KVS_is_full:_it_holds_its_limit_of_2_keys');
    expect((await r0.say('cmd=put kvsname=kvs_t key=a value=4')).at(-1)).toBe('cmd=put_result rc=0 msg=success');
    expect((await r1.say('cmd=get kvsname=kvs_t key=a')).at(-1)).toBe('cmd=get_result rc=0 msg=success value=4');
    expect((await r1.say('cmd=get kvsname=kvs_t key=c')).at(-1)).toBe('cmd=get_result rc=-1 msg=key_c_not_found value=unknown');
    expect(events).toEqual([]);
  });

  it('refuses a maxKvsKeys below 1, naming it', () => {
    expect(() => new PmiServer({ size: 1, maxKvsKeys: 0 })).toThrow(/maxKvsKeys 0 is not an integer >= 1/);
  });

  it('answers the launcher\'s wait query: a rank\'s dapl_waits line reaches onWaits, also while it waits in a barrier', async () => {
    const waits: unknown[] = [];
    const { server, ranks } = rawJob(2, { onWaits: (rank, report) => waits.push([rank, report]) });
    const [r0, r1] = ranks;
    r0.stream.write('cmd=barrier_in\n');
    expect(server.requestWaitReports()).toEqual([0, 1]);
    await r0.replies.waitFor(1);
    await r1.replies.waitFor(1);
    expect(r0.replies.lines).toEqual(['cmd=dapl_report_waits']);
    r0.stream.write(`cmd=dapl_waits waits=${encodeURIComponent(JSON.stringify([['MPI recv from rank 1 tag 9 (context 0)', 2.5]]))}\n`);
    r1.stream.write('cmd=dapl_waits waits=not-json\n');
    await expect.poll(() => waits.length).toBe(2);
    expect(waits).toEqual([[0, [{ what: 'MPI recv from rank 1 tag 9 (context 0)', seconds: 2.5 }]], [1, undefined]]);
  });

  it('holds barrier_out until every rank is in, keeps later replies in order, and reuses the barrier', async () => {
    const { ranks } = rawJob(3);
    for (let round = 0; round < 3; round++) {
      // Rank 0 pipelines a command behind its barrier_in: its reply must come after barrier_out.
      ranks[0].stream.write('cmd=barrier_in\ncmd=get_appnum\n');
      ranks[1].stream.write('cmd=barrier_in\n');
      await new Promise((resolve) => setImmediate(resolve));
      expect(ranks[0].replies.lines.length).toBe(2 * round);
      await ranks[2].say('cmd=barrier_in', round + 1);
      await ranks[0].replies.waitFor(2 * round + 2);
      await ranks[1].replies.waitFor(round + 1);
      expect(ranks[0].replies.lines.slice(-2)).toEqual(['cmd=barrier_out', 'cmd=appnum appnum=0']);
      expect(ranks[1].replies.lines.at(-1)).toBe('cmd=barrier_out');
    }
  });

  it('an abort sent while the rank waits in a barrier reaches onAbort', async () => {
    const { ranks, events } = rawJob(2);
    ranks[0].stream.write('cmd=barrier_in\ncmd=abort exitcode=13\n');
    await expect.poll(() => events).toEqual(['abort 0 13']);
    // The barrier can never complete now: the waiting rank (and any later one) is told so.
    await ranks[0].replies.waitFor(1);
    expect(ranks[0].replies.lines).toEqual(['cmd=barrier_out rc=-1 msg=rank_0_aborted_so_the_barrier_cannot_complete']);
  });
});

describe('PmiServer: broken ranks', () => {
  it('closes a rank that sends garbage; the others are still served, and their barrier fails instead of hanging', async () => {
    const { ranks, events } = rawJob(3);
    await ranks[1].say('this is not PMI');
    expect(ranks[1].replies.closed).toBe(true);
    expect(events).toEqual(['protocol-error 1: PMI token "this" is not key=value (in line "this is not PMI")']);
    await ranks[0].say('cmd=put kvsname=kvs_t key=a value=1');
    await ranks[2].say('cmd=get kvsname=kvs_t key=a');
    expect(ranks[2].replies.lines).toEqual(['cmd=get_result rc=0 msg=success value=1']);
    await ranks[0].say('cmd=barrier_in');
    expect(ranks[0].replies.lines.at(-1)).toBe('cmd=barrier_out rc=-1 msg=rank_1_failed_so_the_barrier_cannot_complete');
    expect(ranks[0].replies.closed).toBe(false);
  });

  it('closes a rank that sends an unknown command or a put without a key', async () => {
    const { ranks, events } = rawJob(2);
    await ranks[0].say('cmd=spawn nprocs=2');
    await ranks[1].say('cmd=put kvsname=kvs_t value=1');
    expect(ranks.map((r) => r.replies.closed)).toEqual([true, true]);
    expect(events).toEqual([
      'protocol-error 0: rank 0 sent an unknown PMI command "cmd=spawn nprocs=2"',
      'protocol-error 1: rank 1 sent "cmd=put kvsname=kvs_t value=1": put needs kvsname, key and value',
    ]);
  });

  it('reports a rank that disconnects while others wait in a barrier, and fails that barrier', async () => {
    const { ranks, events } = rawJob(3);
    ranks[0].stream.write('cmd=barrier_in\n');
    ranks[1].stream.write('cmd=barrier_in\n');
    await new Promise((resolve) => setImmediate(resolve));
    ranks[2].stream.destroy();
    await Promise.all([ranks[0].replies.waitFor(1), ranks[1].replies.waitFor(1)]);
    expect(events).toEqual(['disconnect 2']);
    expect(ranks[0].replies.lines).toEqual(['cmd=barrier_out rc=-1 msg=rank_2_disconnected_so_the_barrier_cannot_complete']);
    expect(ranks[1].replies.lines).toEqual(ranks[0].replies.lines);
  });

  it('without onDisconnect, a disconnect goes to onProtocolError; after finalize, a close is normal', async () => {
    const { ranks, events } = rawJob(2, { onDisconnect: undefined });
    await ranks[0].say('cmd=finalize');
    ranks[0].stream.destroy();
    ranks[1].stream.destroy();
    await expect.poll(() => events).toEqual(['finalize 0', 'protocol-error 1: rank 1 closed its PMI connection before finalize']);
  });

  it('a command after finalize and a truncated last line are protocol errors', async () => {
    const { ranks, events } = rawJob(2);
    await ranks[0].say('cmd=finalize');
    await ranks[0].say('cmd=get_appnum');
    ranks[1].stream.end('cmd=get_app');
    await expect.poll(() => events.length).toBe(3);
    expect(events).toEqual([
      'finalize 0',
      'protocol-error 0: rank 0 sent "cmd=get_appnum" after finalize',
      'protocol-error 1: the PMI stream ended in the middle of a line (11 bytes without a newline)',
    ]);
  });

  it('closes a rank whose line is over the limit, before its newline arrives', async () => {
    const { ranks, events } = rawJob(1);
    ranks[0].stream.write(`cmd=put value=${'x'.repeat(5000)}`);
    await ranks[0].replies.waitFor(1);
    expect(ranks[0].replies.closed).toBe(true);
    expect(events[0]).toMatch(/^protocol-error 0: a PMI line exceeds the maximum of \d+ bytes/);
  });

  it('a callback that throws does not break the server', async () => {
    const { ranks } = rawJob(1, { onFinalize: () => { throw new Error('launcher bug'); } });
    await ranks[0].say('cmd=finalize');
    expect(ranks[0].replies.lines).toEqual(['cmd=finalize_ack']);
  });
});

describe('PmiServer: PMI_PORT clients and arguments', () => {
  async function portClient(port: number): Promise<{ socket: net.Socket; replies: LineCollector }> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    return { socket, replies: new LineCollector(socket) };
  }

  it('identifies a client by initack and refuses bad identifications', async () => {
    const events: string[] = [];
    const server = new PmiServer({ size: 2, onProtocolError: (rank, message) => events.push(`${rank}: ${message}`) });
    servers.push(server);
    const port = await server.listen();
    const good = await portClient(port);
    good.socket.write('cmd=initack pmiid=1\n');
    await good.replies.waitFor(4);
    expect(good.replies.lines).toEqual(['cmd=initack', 'cmd=set size=2', 'cmd=set rank=1', 'cmd=set debug=0']);
    for (const line of ['cmd=init pmi_version=1 pmi_subversion=1', 'cmd=initack pmiid=1', 'cmd=initack pmiid=2', 'garbage']) {
      const bad = await portClient(port);
      bad.socket.write(`${line}\n`);
      await bad.replies.waitFor(1);
      expect(bad.replies.closed, line).toBe(true);
    }
    expect(events).toEqual([
      'undefined: a PMI_PORT client must first send cmd=initack pmiid=<rank>, not "cmd=init pmi_version=1 pmi_subversion=1"',
      'undefined: initack pmiid=1: rank already connected',
      'undefined: initack pmiid=2: rank not in [0, 1]',
      'undefined: PMI token "garbage" is not key=value (in line "garbage")',
    ]);
    good.socket.destroy();
  });

  it('validates its arguments', async () => {
    expect(() => new PmiServer({ size: 0 })).toThrow(expect.objectContaining({ status: DatStatus.INVALID_PARAMETER, argument: 'size' }));
    expect(() => new PmiServer({ size: 1, appnum: -1 })).toThrow(expect.objectContaining({ argument: 'appnum' }));
    expect(() => new PmiServer({ size: 1, limits: { vallenMax: 1 } })).toThrow(expect.objectContaining({ argument: 'limits.vallenMax' }));
    expect(() => new PmiServer({ size: 1, kvsName: 'has space' })).toThrow(expect.objectContaining({ argument: 'kvsName' }));
    expect(new PmiServer({ size: 1 }).kvsName).toMatch(new RegExp(`^kvs_${process.pid}_[0-9a-f]{8}$`));
    const server = new PmiServer({ size: 2 });
    const [, a] = await socketPair();
    expect(() => server.attach(a, 2)).toThrow(expect.objectContaining({ status: DatStatus.INVALID_PARAMETER, argument: 'rank' }));
    server.attach(a, 1);
    expect(() => server.attach(memoryPair()[1], 1)).toThrow(expect.objectContaining({ status: DatStatus.INVALID_STATE }));
    await server.listen();
    await expect(server.listen()).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
    await server.close();
    expect(a.destroyed).toBe(true);
    expect(() => server.attach(memoryPair()[1], 0)).toThrow(expect.objectContaining({ status: DatStatus.INVALID_STATE }));
  });
});
