import { describe, expect, it } from 'vitest';
import { isDatError, type DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { localProcesses } from '../src/runtime/local-processes.js';
import { Pmi2Runtime } from '../src/runtime/pmi/pmi2-runtime.js';
import { pmiVersionFor } from '../src/runtime/pmi/pmi-version.js';
import { FakePmi2Server, type FakePmi2Options } from './fixtures/pmi/fake-pmi2-server.js';
import { socketPair } from './fixtures/pmi/stream-pair.js';

async function startRanks(options: FakePmi2Options, runtimeOptions = {}): Promise<{ server: FakePmi2Server; ranks: Pmi2Runtime[] }> {
  const server = new FakePmi2Server(options);
  const ranks = await Promise.all(
    Array.from({ length: options.size }, async (_, rank) => {
      const [client, peer] = await socketPair();
      server.serve(peer, rank);
      return Pmi2Runtime.overStream(client, { rank, jobId: server.jobId }, runtimeOptions);
    }),
  );
  return { server, ranks };
}

/** A Slurm-style frame around `payload`. */
function frame(payload: string): string {
  return `${Buffer.byteLength(payload)}`.padEnd(6) + payload;
}

async function rejection(promise: Promise<unknown>): Promise<DatError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isDatError(error)) throw new Error(`expected a DatError, got ${String(error)}`);
  return error;
}

describe('Pmi2Runtime', () => {
  for (const flavour of ['slurm', 'hydra'] as const) {
    it(`joins a 4-rank job served as ${flavour} serves it: rank, size, process mapping, put/fence/get, finalize`, async () => {
      const { server, ranks } = await startRanks({ size: 4, flavour, mapping: '(vector,(0,2,2))' });
      expect(ranks.map((r) => [r.rank, r.size, r.jobId])).toEqual([0, 1, 2, 3].map((r) => [r, 4, server.jobId]));
      expect(ranks.map((r) => r.localRanks)).toEqual([[0, 1], [0, 1], [2, 3], [2, 3]]);
      expect(ranks.map((r) => localProcesses(r, {}))).toEqual([2, 2, 2, 2]);
      await Promise.all(ranks.map((r) => r.put(`addr-${r.rank}`, `tcp://10.231.0.1${r.rank}:4000${r.rank}`)));
      await Promise.all(ranks.map((r) => r.fence()));
      const seen = await Promise.all(ranks.map((r) => r.get(`addr-${(r.rank + 1) % 4}`)));
      expect(seen).toEqual([1, 2, 3, 0].map((p) => `tcp://10.231.0.1${p}:4000${p}`));
      // Requests made together are queued, one on the wire at a time, and answered in order.
      expect(await Promise.all([3, 1, 2].map((p) => ranks[0].get(`addr-${p}`)))).toEqual([3, 1, 2].map((p) => `tcp://10.231.0.1${p}:4000${p}`));
      const missing = await rejection(ranks[0].get('no-such-key'));
      expect(missing.status).toBe(DatStatus.INVALID_PARAMETER);
      expect(missing.argument).toBe('key');
      await Promise.all(ranks.map((r) => r.finalize()));
      // The conversation opens with the unframed PMI-1-style line Slurm requires, then frames.
      expect(server.received[2][0]).toBe('cmd=init pmi_version=2 pmi_subversion=0');
      expect(server.received[2].slice(1, 4)).toEqual([`cmd=fullinit;pmijobid=${server.jobId};pmirank=2;threaded=FALSE;`, 'cmd=job-getid;', 'cmd=info-getjobattr;key=PMI_process_mapping;']);
      expect(server.received[2].at(-1)).toBe('cmd=finalize;');
      await expect(ranks[0].put('k', 'v')).rejects.toThrow(/after finalize/);
    });
  }

  for (const flavour of ['slurm', 'hydra'] as const) {
    it(`barrier holds every rank until the last has entered it, as ${flavour} serves fences`, async () => {
      const { server, ranks } = await startRanks({ size: 4, flavour });
      const passed: number[] = [];
      const early = ranks.slice(0, 3).map((r) => r.barrier().then(() => passed.push(r.rank)));
      // Hydra answers each fence at once: wait until the three have sent their barrier's get too.
      const asked = (rank: number) => server.received[rank].some((f) => (flavour === 'hydra' ? f.includes('key=dapl-barrier-1') : f === 'cmd=kvs-fence;'));
      while (![0, 1, 2].every(asked)) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(passed).toEqual([]);
      await Promise.all([...early, ranks[3].barrier()]);
      expect(passed.sort()).toEqual([0, 1, 2]);
      // A second barrier is one of its own (a key of its own under Hydra).
      await Promise.all(ranks.map((r) => r.barrier()));
      await Promise.all(ranks.map((r) => r.finalize()));
    });
  }

  it('has no localRanks when the server gives no mapping (Hydra: found=FALSE)', async () => {
    const { ranks } = await startRanks({ size: 2, flavour: 'hydra' });
    expect(ranks[0].localRanks).toBeUndefined();
    expect(localProcesses(ranks[0], { MPI_LOCALNRANKS: '1' })).toBe(1);
    await Promise.all(ranks.map((r) => r.finalize()));
  });

  it('refuses keys and values the PMI-2 wire cannot carry before sending them', async () => {
    const { server, ranks } = await startRanks({ size: 1, flavour: 'slurm' });
    const before = server.received[0].length;
    expect((await rejection(ranks[0].put('a;b', 'v'))).argument).toBe('key');
    expect((await rejection(ranks[0].put('k', 'x'.repeat(1024)))).status).toBe(DatStatus.LENGTH_ERROR);
    expect(server.received[0].length).toBe(before);
    await ranks[0].finalize();
  });

  it('abort sends cmd=abort with the message and exits with the code', async () => {
    const exits: number[] = [];
    const { server, ranks } = await startRanks({ size: 1, flavour: 'slurm' }, { exit: (c: number) => exits.push(c), writeError: () => undefined });
    const error = await rejection(ranks[0].abort(3, 'bad; input'));
    expect(error.status).toBe(DatStatus.ABORT);
    expect(exits).toEqual([3]);
    await expect.poll(() => server.aborts).toEqual(['0:bad  input']);
  });

  const failures: [string, FakePmi2Options['override'], DatStatus, RegExp][] = [
    ['a server that never answers (an unknown command gets no reply from Slurm)', (c) => (c === 'job-getid' ? 'silent' : undefined), DatStatus.TIMEOUT_EXPIRED, /no reply to job-getid/],
    ['a reply with a garbage length', (c) => (c === 'job-getid' ? 'xx    cmd=job-getid-response;rc=0;' : undefined), DatStatus.INTERNAL_ERROR, /malformed frame.*length prefix/],
    ['the wrong reply', (c) => (c === 'job-getid' ? frame('cmd=kvs-put-response;rc=0;') : undefined), DatStatus.INTERNAL_ERROR, /expected cmd=job-getid-response/],
    ['a refused fullinit', (c) => (c === 'fullinit' ? frame('cmd=fullinit-response;rc=1;errmsg=no-such;') : undefined), DatStatus.INTERNAL_ERROR, /refused fullinit/],
    ['a malformed process mapping', (c) => (c === 'info-getjobattr' ? frame('cmd=info-getjobattr-response;rc=0;found=TRUE;value=(x);') : undefined), DatStatus.INTERNAL_ERROR, /PMI_process_mapping/],
  ];
  for (const [what, override, status, pattern] of failures) {
    it(`fails the handshake with a DatError on ${what}`, async () => {
      const server = new FakePmi2Server({ size: 1, flavour: 'slurm', override });
      const [client, peer] = await socketPair();
      server.serve(peer, 0);
      // Only the silent server may time out: the others must fail on what they sent, however slow the machine.
      const replyTimeoutMs = status === DatStatus.TIMEOUT_EXPIRED ? 300 : 30_000;
      const error = await rejection(Pmi2Runtime.overStream(client, { rank: 0 }, { replyTimeoutMs }));
      expect(error.status).toBe(status);
      expect(error.message).toMatch(pattern);
    });
  }
});

describe('choosing PMI-1 or PMI-2 from the environment', () => {
  it('picks PMI-2 under srun --mpi=pmi2 or PMI_VERSION=2, PMI-1 otherwise, and obeys DAPL_PMI_VERSION', () => {
    expect(pmiVersionFor({ PMI_FD: '5', SLURM_MPI_TYPE: 'pmi2' })).toBe(2);
    expect(pmiVersionFor({ PMI_FD: '5', PMI_VERSION: '2' })).toBe(2);
    expect(pmiVersionFor({ PMI_FD: '5' })).toBe(1);
    expect(pmiVersionFor({ PMI_PORT: 'h:1', SLURM_MPI_TYPE: 'pmi2' })).toBe(1);
    expect(pmiVersionFor({ PMI_FD: '5', SLURM_MPI_TYPE: 'pmi2', DAPL_PMI_VERSION: '1' })).toBe(1);
    expect(pmiVersionFor({ PMI_FD: '5', DAPL_PMI_VERSION: '2' })).toBe(2);
    expect(pmiVersionFor({ PMI_FD: '5', SLURM_MPI_TYPE: 'pmi2', DAPL_PMI_VERSION: 'auto' })).toBe(2);
    let error: unknown;
    try {
      pmiVersionFor({ DAPL_PMI_VERSION: '3' });
    } catch (e) {
      error = e;
    }
    expect(isDatError(error, DatStatus.INVALID_PARAMETER) && error.argument).toBe('DAPL_PMI_VERSION');
  });
});
