import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { PmiRuntime } from '../src/runtime/pmi/pmi-runtime.js';
import { PmiServer } from '../src/runtime/pmi/pmi-server.js';

const servers: PmiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const jobKey = new Uint8Array(randomBytes(32));
const keyHex = Buffer.from(jobKey).toString('hex');

async function authServer(size: number, events: string[], identifyTimeoutMs = 30_000): Promise<{ server: PmiServer; port: number }> {
  const server = new PmiServer({
    size,
    portAuthKey: jobKey,
    identifyTimeoutMs,
    onProtocolError: (rank, m) => events.push(`protocol-error ${rank} ${m}`),
    onAbort: (rank) => events.push(`abort ${rank}`),
    onDisconnect: (rank) => events.push(`disconnect ${rank}`),
    onPortClient: (rank) => events.push(`port-client ${rank}`),
  });
  servers.push(server);
  return { server, port: await server.listen('127.0.0.1') };
}

const rankEnv = (port: number, rank: number, key = keyHex): NodeJS.ProcessEnv => ({ PMI_PORT: `127.0.0.1:${port}`, PMI_ID: String(rank), DAPL_PMI_AUTH: 'hmac-sha256', DAPL_JOB_KEY: key });

/** Connects, writes `lines`, and resolves with everything the server sent before it closed the connection. */
function foreignClient(port: number, lines: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(lines));
    socket.on('data', (c) => (got += c.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
  });
}

describe('PMI_PORT authenticated by the job key', () => {
  it('ranks with the job key join and share the KVS', async () => {
    const events: string[] = [];
    const { server, port } = await authServer(2, events);
    const ranks = await Promise.all([0, 1].map((r) => PmiRuntime.connect(rankEnv(port, r))));
    await Promise.all(ranks.map((r) => r.put(`k${r.rank}`, `v${r.rank}`)));
    await Promise.all(ranks.map((r) => r.fence()));
    expect(await ranks[0].get('k1')).toBe('v1');
    await Promise.all(ranks.map((r) => r.finalize()));
    expect(events.sort()).toEqual(['port-client 0', 'port-client 1']);
    expect(server.refusedConnections).toBe(0);
  });

  it('refuses foreign processes before any event: no answer, a wrong digest, garbage, a wrong key, silence', async () => {
    const events: string[] = [];
    const { server, port } = await authServer(1, events);
    // Skips the challenge and asks for the KVS at once.
    const skipped = await foreignClient(port, 'cmd=initack pmiid=0\ncmd=get_my_kvsname\n');
    expect(skipped).toMatch(/^cmd=auth_challenge nonce=[0-9a-f]{32}\n$/);
    const forged = await foreignClient(port, `cmd=auth_response pmiid=0 digest=${'0'.repeat(64)}\ncmd=initack pmiid=0\n`);
    expect(forged).toMatch(/^cmd=auth_challenge nonce=[0-9a-f]{32}\n$/);
    const garbage = await foreignClient(port, 'GET / HTTP/1.1\r\n\r\n');
    expect(garbage).toMatch(/^cmd=auth_challenge/);
    const wrongKey = await PmiRuntime.connect(rankEnv(port, 0, 'ab'.repeat(32)), { replyTimeoutMs: 30_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDatError(wrongKey, DatStatus.CONNECTION_BROKEN), String(wrongKey)).toBe(true);
    expect(server.refusedConnections).toBe(4);
    expect(events).toEqual([]);
    // One that says nothing is closed after identifyTimeoutMs (short on a server of its own).
    const quiet = await authServer(1, events, 300);
    expect(await foreignClient(quiet.port, '')).toMatch(/^cmd=auth_challenge/);
    expect(quiet.server.refusedConnections).toBe(1);
    expect(events).toEqual([]);
    // The real rank still joins as rank 0.
    const rank = await PmiRuntime.connect(rankEnv(port, 0));
    await rank.finalize();
    expect(events).toEqual(['port-client 0']);
  });

  it('binds the answer to the rank: authenticated as 0, initack as 1 is refused', async () => {
    const events: string[] = [];
    const { server, port } = await authServer(2, events);
    const ok = await PmiRuntime.connect({ ...rankEnv(port, 1), PMI_ID: '1' });
    const { pmiAuthDigest } = await import('../src/runtime/pmi/pmi-port-auth.js');
    const got = await new Promise<string>((resolve) => {
      let text = '';
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.on('data', (c) => {
        text += c.toString();
        const nonce = /nonce=([0-9a-f]+)/.exec(text)?.[1];
        if (nonce !== undefined && !text.includes('sent')) {
          text += 'sent';
          socket.write(`cmd=auth_response pmiid=0 digest=${pmiAuthDigest(jobKey, nonce, 0)}\ncmd=initack pmiid=1\n`);
        }
      });
      socket.on('close', () => resolve(text));
    });
    expect(got).not.toMatch(/cmd=initack|cmd=set/);
    expect(server.refusedConnections).toBe(1);
    expect(events).toEqual(['port-client 1']);
    await ok.finalize().catch(() => undefined);
  });

  it('a dapl run --hosts rank whose launcher goes away exits with code 1 and a line; a finalized one does not', async () => {
    const events: string[] = [];
    const { server, port } = await authServer(2, events);
    const exits: number[] = [];
    const lines: string[] = [];
    const options = { exit: (c: number) => exits.push(c), writeError: (t: string) => lines.push(t) };
    const [live, done] = await Promise.all([PmiRuntime.connect(rankEnv(port, 0), options), PmiRuntime.connect(rankEnv(port, 1), options)]);
    await done.finalize();
    await server.close();
    await expect.poll(() => exits).toEqual([1]);
    expect(lines).toEqual([expect.stringMatching(/^dapl: rank 0 lost its PMI connection to the launcher \(the PMI server closed the connection\); exiting\n$/)]);
    await expect(live.put('k', 'v')).rejects.toThrow(/after abort/);
  });

  it('serves PMI_process_mapping from its KVS, so PMI-1 ranks know who shares their host; a malformed one is refused', async () => {
    const server = new PmiServer({ size: 4, portAuthKey: jobKey, processMapping: '(vector,(0,2,2))' });
    servers.push(server);
    const port = await server.listen('127.0.0.1');
    const ranks = await Promise.all([0, 1, 2, 3].map((r) => PmiRuntime.connect(rankEnv(port, r))));
    expect(ranks.map((r) => r.localRanks)).toEqual([[0, 1], [0, 1], [2, 3], [2, 3]]);
    await Promise.all(ranks.map((r) => r.finalize()));
    expect(() => new PmiServer({ size: 2, processMapping: '(vector,(0,x,1))' })).toThrow(/PMI_process_mapping/);
  });
});
