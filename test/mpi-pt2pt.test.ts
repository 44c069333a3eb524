// MPI point-to-point on every provider (issue 5): the same programs (test/fixtures/mpi) run over tcp
// with the ranks in one process, over tcp as separate processes (a subset), on the simulated ib,
// lapi and combuf machines in virtual time, and over shm with the ranks as worker threads. Each program checks the data it receives and the errors
// it gets, and prints one line per rank that passed; a failed check exits non-zero with the reason.
import { describe, expect, it } from 'vitest';
import { daplRun, nodeRun } from './support/dapl-run.js';
import { PROVIDERS, fixture, passed, ranks } from './support/mpi-jobs.js';

const KILL_AFTER_MS = 90_000;
/** Blocking sends up to 64 KiB complete from a copy (mpi.bounceLimit is off by default). */
const BOUNCE_ON = { DAPL_MPI_BOUNCE_LIMIT: '65536' };
const BOUNCE_OFF = { DAPL_MPI_BOUNCE_LIMIT: '0' };

// Jobs of worker-thread ranks on a loaded 2-vCPU host take longer than in-process ones: a job-sized timeout.
describe.each(Object.entries(PROVIDERS))('MPI point-to-point on %s', { timeout: 120_000 }, (name, launch) => {
  const run = (n: number, program: string, env: Record<string, string> = {}, args: string[] = []) => daplRun(['-n', String(n), ...launch, fixture(program), ...args], env, KILL_AFTER_MS);

  it('every mode, blocking and non-blocking, 0 B to 4 MiB across the eager limit, contents checked (2 ranks)', async () => {
    expect(passed(await run(2, 'modes'))).toEqual(['rank 1: modes ok (83 transfers checked)']);
  });

  it('the same and derived types with rendezvous by RDMA write and a 1 KiB eager limit (4 ranks)', async () => {
    const env = { DAPL_MPI_RENDEZVOUS: 'write', DAPL_MPI_EAGER_LIMIT: '1024' };
    const [modes, datatypes] = await Promise.all([run(4, 'modes', env), run(2, 'datatypes', env)]);
    expect(passed(modes)).toEqual(['rank 1: modes ok (83 transfers checked)', 'rank 3: modes ok (83 transfers checked)']);
    expect(passed(datatypes)).toEqual(ranks(2, () => 'datatypes ok'));
  });

  it('modes without receiver-initiated rendezvous: every large message by RTS and RDMA read (2 ranks)', async () => {
    expect(passed(await run(2, 'modes', { DAPL_MPI_RECEIVER_INITIATED: 'false' }))).toEqual(['rank 1: modes ok (83 transfers checked)']);
  });

  it('messages held for lack of room: a receive posted before a flood from its peer completes; iprobe sees a message behind held ones (tcp); a failed sendrecv leaves no receive posted', async () => {
    expect(passed(await run(2, 'held', { DAPL_MPI_UNEXPECTED_LIMIT: '0' }))).toEqual(ranks(2, () => 'held ok'));
  });

  it('a connection lost under waiting receives: both ends fail with ERR_PROC_FAILED, later operations with the peer fail at once, a bsend that was in flight is reported by bufferDetach, other pairs go on (3 ranks)', async () => {
    expect(passed(await run(3, 'lost-connection'))).toEqual(ranks(3, () => 'lost connection ok'));
  });

  it('receiver-initiated rendezvous: a window written into advertised receives, an eager message first, truncation, a wildcard ahead, cancel (also of one beside another advertised receive, and of a small one in front of one), 200 tags; and with it off', async () => {
    const [on, off] = await Promise.all([run(2, 'advertised'), run(2, 'advertised', { DAPL_MPI_RECEIVER_INITIATED: 'false' })]);
    expect(passed(on)).toEqual(['rank 0: advertised sends ok', 'rank 1: advertised receives ok']);
    expect(passed(off)).toEqual(['rank 0: advertised sends ok', 'rank 1: advertised receives ok']);
  });

  it('blocking sends between the eager and bounce limits complete from a copy (a pool of 4); non-blocking, synchronous, buffered and larger ones are not copied; by default (32 KiB), at 64 KiB, and with the copy off', async () => {
    const [on, byDefault, off] = await Promise.all([run(2, 'bounce', BOUNCE_ON), run(2, 'bounce'), run(2, 'bounce', BOUNCE_OFF)]);
    for (const ran of [on, byDefault, off]) expect(passed(ran)).toEqual(['rank 0: blocking sends ok', 'rank 1: blocking receives ok']);
  });

  it('wildcards, non-overtaking order, probe then recv, cancel, sendrecvReplace, 500 outstanding receives (5 ranks)', async () => {
    expect(passed(await run(5, 'matching'))).toEqual(ranks(5, () => 'matching ok'));
  });

  it('derived datatypes: vector, indexed, struct, different types with one signature, non-contiguous rendezvous, a negative lower bound (4 ranks)', async () => {
    expect(passed(await run(4, 'datatypes'))).toEqual(ranks(4, () => 'datatypes ok'));
  });

  it('split odd/even with traffic on both, dup, create, self, groups (6 ranks)', async () => {
    expect(passed(await run(6, 'comms'))).toEqual(ranks(6, () => 'communicators ok'));
  });

  it('pairs exchanging 4 MiB and every rank sending 1 MiB to all others before receiving do not deadlock (4 ranks)', async () => {
    expect(passed(await run(4, 'exchange'))).toEqual(ranks(4, () => 'exchange ok'));
  });

  it('39 bad inputs and erroneous programs give typed errors and leave the job usable (3 ranks)', async () => {
    expect(passed(await run(3, 'errors'))).toEqual(ranks(3, () => 'errors ok (39 cases)'));
  });

  it('fastboxes where the provider has peer memory (shm): small messages beside larger ones by DAT keep their order, in bursts that fill the boxes, received late and posted first; a synchronous send through a box waits for its receive; messages to itself; elsewhere none (2 ranks)', async () => {
    const boxed = name.startsWith('shm');
    const [on, off] = await Promise.all([run(2, 'fastbox', {}, boxed ? ['--boxed'] : []), run(2, 'fastbox', { DAPL_MPI_FASTBOX: 'false' })]);
    expect(passed(on)).toEqual(ranks(2, () => `fastbox order ok (${boxed ? 'boxes' : 'no boxes'})`));
    expect(passed(off)).toEqual(ranks(2, () => 'fastbox order ok (no boxes)'));
    if (!boxed) return;
    // No polled waits, and ranks that sleep when idle: every box is found by the provider's progress
    // (woken by the sender's notify) and delivered from its poller's microtask.
    const asleep = await run(2, 'fastbox', { DAPL_MPI_POLL_WAIT: 'off', DAPL_SHM_SPIN: 'off' }, ['--boxed']);
    expect(passed(asleep)).toEqual(ranks(2, () => 'fastbox order ok (boxes)'));
  });

  it('10,000 eager messages to a receiver that is not receiving: in order, unexpected bytes within the bound', async () => {
    const lines = passed(await run(3, 'flood', { DAPL_MPI_UNEXPECTED_LIMIT: '4096' }));
    expect(lines[0]).toBe('rank 0: sent 10000');
    const match = /^rank 1: received 10000 in order; peak unexpected (\d+) B \(bound 4096 B\), peak held (\d+)$/.exec(lines[1]);
    expect(match, lines[1]).not.toBeNull();
    expect(Number(match![1])).toBeLessThanOrEqual(4096);
    // Past the bound the messages wait in the receive buffers (never more than were posted: 64).
    expect(Number(match![2])).toBeGreaterThan(0);
    expect(Number(match![2])).toBeLessThanOrEqual(64);
  });
});

describe('MPI point-to-point on tcp with one process per rank (dapl run)', () => {
  const run = (n: number, program: string, env: Record<string, string> = {}) => daplRun(['-n', String(n), fixture(program)], env, KILL_AFTER_MS);

  it('modes and sizes (2 processes)', async () => {
    expect(passed(await run(2, 'modes'))).toEqual(['rank 1: modes ok (83 transfers checked)']);
  });

  it('matching (3 processes) and errors (2 processes)', async () => {
    const [matching, errors] = await Promise.all([run(3, 'matching'), run(2, 'errors')]);
    expect(passed(matching)).toEqual(ranks(3, () => 'matching ok'));
    expect(passed(errors)).toEqual(ranks(2, () => 'errors ok (39 cases)'));
  });

  it('receiver-initiated rendezvous and blocking sends from a copy (2 processes each)', async () => {
    const [advertised, bounce] = await Promise.all([run(2, 'advertised'), run(2, 'bounce', BOUNCE_ON)]);
    expect(passed(advertised)).toEqual(['rank 0: advertised sends ok', 'rank 1: advertised receives ok']);
    expect(passed(bounce)).toEqual(['rank 0: blocking sends ok', 'rank 1: blocking receives ok']);
  });
});

/**
 * The rdma device's two eager pools (`mpi.eagerPool`): one shared receive queue per rank (the default
 * where the provider has SRQs: every provider of the kit) and `credits` buffers per connection. Both
 * run modes, matching and the flood, on tcp (in one process and as processes) and on ib; the
 * protocol line says which pool served.
 */
const EAGER_POOL_LAUNCHES: [string, string[]][] = [
  ['tcp (ranks in one process)', ['--in-process', '--provider', 'tcp']],
  ['tcp (one process per rank)', []],
  ['ib', ['--provider', 'ib']],
];
describe.each(EAGER_POOL_LAUNCHES)('MPI point-to-point with each eager pool on %s', { timeout: 120_000 }, (_name, launch) => {
  it.each([
    ['srq', 'one shared receive queue of up to 512 eager buffers'],
    ['per-peer', '64 eager buffers of 8192 B per peer'],
  ])('mpi.eagerPool=%s: modes (2 ranks), matching (3), a flood of 10,000 messages in order within the unexpected bound, at most a window of buffers held', async (pool, described) => {
    const env = { DAPL_MPI_EAGER_POOL: pool };
    const run = (n: number, program: string, more: Record<string, string> = {}) => daplRun(['-n', String(n), ...launch, fixture(program)], { ...env, ...more }, KILL_AFTER_MS);
    const [modes, matching, flood] = await Promise.all([run(2, 'modes', { DAPL_MPI_PROTOCOL_INFO: 'true' }), run(3, 'matching'), run(3, 'flood', { DAPL_MPI_UNEXPECTED_LIMIT: '4096' })]);
    const lines = passed(modes);
    expect(lines.find((l) => l.startsWith('mpi: device rdma'))).toContain(described);
    expect(lines.filter((l) => l.startsWith('rank'))).toEqual(['rank 1: modes ok (83 transfers checked)']);
    expect(passed(matching)).toEqual(ranks(3, () => 'matching ok'));
    const floodLines = passed(flood);
    expect(floodLines[0]).toBe('rank 0: sent 10000');
    const match = /^rank 1: received 10000 in order; peak unexpected (\d+) B \(bound 4096 B\), peak held (\d+)$/.exec(floodLines[1]);
    expect(match, floodLines[1]).not.toBeNull();
    expect(Number(match![1])).toBeLessThanOrEqual(4096);
    expect(Number(match![2])).toBeLessThanOrEqual(64);
  });
});

/**
 * The channel device (MPICH's Channel Interface over DAT send/recv) runs the same fixtures on every
 * provider, at fewer ranks; advertised and bounce are left out: they test mechanisms of the rdma
 * device (receiver-initiated rendezvous, bounce buffers) through its counters.
 */
const CHANNEL = { DAPL_MPI_DEVICE: 'channel' };
/** Small thresholds, so that the fixtures' sizes around the eager limit cross all three protocols. */
const CHANNEL_SMALL = { ...CHANNEL, DAPL_MPI_CHANNEL_SHORT_LIMIT: '1000', DAPL_MPI_CHANNEL_EAGER_LIMIT: '8192' };

type Run = (n: number, program: string, env?: Record<string, string>) => Promise<Ran>;

/** Modes (2 ranks), derived datatypes (2), matching (3) and errors (3) pass on a device; `tuned`: its thresholds, set so that the fixtures' sizes cross them. */
async function expectFixturesPass(run: Run, tuned: Record<string, string>): Promise<void> {
  const [modes, datatypes, matching, errors] = await Promise.all([run(2, 'modes', tuned), run(2, 'datatypes', tuned), run(3, 'matching', tuned), run(3, 'errors', tuned)]);
  expect(passed(modes)).toEqual(['rank 1: modes ok (83 transfers checked)']);
  expect(passed(datatypes)).toEqual(ranks(2, () => 'datatypes ok'));
  expect(passed(matching)).toEqual(ranks(3, () => 'matching ok'));
  expect(passed(errors)).toEqual(ranks(3, () => 'errors ok (39 cases)'));
}

/**
 * Communicators (4 ranks), held messages, a lost connection (3), the 4 MiB exchange (4) pass on a
 * device, and a flood of 10,000 messages arrives in order: its receiver's line, peak unexpected bytes
 * (within the 4096-byte bound) and peak held buffers.
 */
async function expectRobust(run: Run, tuned: Record<string, string>): Promise<{ unexpected: number; held: number }> {
  const [comms, held, lost, exchange, flood] = await Promise.all([
    run(4, 'comms'),
    run(2, 'held', { DAPL_MPI_UNEXPECTED_LIMIT: '0' }),
    run(3, 'lost-connection', tuned),
    run(4, 'exchange'),
    run(3, 'flood', { DAPL_MPI_UNEXPECTED_LIMIT: '4096' }),
  ]);
  expect(passed(comms)).toEqual(ranks(4, () => 'communicators ok'));
  expect(passed(held)).toEqual(ranks(2, () => 'held ok'));
  expect(passed(lost)).toEqual(ranks(3, () => 'lost connection ok'));
  expect(passed(exchange)).toEqual(ranks(4, () => 'exchange ok'));
  const lines = passed(flood);
  expect(lines[0]).toBe('rank 0: sent 10000');
  const match = /^rank 1: received 10000 in order; peak unexpected (\d+) B \(bound 4096 B\), peak held (\d+)$/.exec(lines[1]);
  expect(match, lines[1]).not.toBeNull();
  expect(Number(match![1])).toBeLessThanOrEqual(4096);
  return { unexpected: Number(match![1]), held: Number(match![2]) };
}

describe.each(Object.entries(PROVIDERS))('MPI point-to-point on the channel device on %s', (_name, launch) => {
  const run = (n: number, program: string, env: Record<string, string> = {}) => daplRun(['-n', String(n), ...launch, fixture(program)], { ...CHANNEL, ...env }, KILL_AFTER_MS);

  it('modes (2 ranks), derived datatypes (2), matching (3) and errors (3), with thresholds the fixtures\' sizes cross', async () => {
    await expectFixturesPass(run, CHANNEL_SMALL);
  }, 120_000);

  it('communicators (4 ranks), held messages, a lost connection (3 ranks), the 4 MiB exchange without deadlock (4 ranks), and a flood of 10,000 short messages within the unexpected bound, holding at most a window of buffers', async () => {
    const flood = await expectRobust(run, CHANNEL_SMALL);
    // Past the bound the messages wait in the receive buffers: never more than the 16 posted per peer.
    expect(flood.held).toBeGreaterThan(0);
    expect(flood.held).toBeLessThanOrEqual(16);
  }, 120_000);
});

describe('MPI point-to-point on the channel device, more', () => {
  const run = (n: number, launch: string[], program: string, env: Record<string, string> = {}) => daplRun(['-n', String(n), ...launch, fixture(program)], { ...CHANNEL, ...env }, KILL_AFTER_MS);

  it('over tcp with one process per rank: modes at the default thresholds (2 processes), matching (3), errors (2), exchange (4), flood (3)', async () => {
    const [modes, matching, errors, exchange, flood] = await Promise.all([
      run(2, [], 'modes'),
      run(3, [], 'matching', CHANNEL_SMALL),
      run(2, [], 'errors', CHANNEL_SMALL),
      run(4, [], 'exchange'),
      run(3, [], 'flood', { DAPL_MPI_UNEXPECTED_LIMIT: '4096' }),
    ]);
    expect(passed(modes)).toEqual(['rank 1: modes ok (83 transfers checked)']);
    expect(passed(matching)).toEqual(ranks(3, () => 'matching ok'));
    expect(passed(errors)).toEqual(ranks(2, () => 'errors ok (39 cases)'));
    expect(passed(exchange)).toEqual(ranks(4, () => 'exchange ok'));
    expect(passed(flood)[1]).toMatch(/^rank 1: received 10000 in order; peak unexpected \d+ B \(bound 4096 B\), peak held \d+$/);
  }, 120_000);

  it('rendezvous data on the bulk stream: into a view at an offset, into and from strided types, a truncated receive (ERR_TRUNCATE), both ways at once; on tcp processes by default (also with messages cut at a 1 MiB provider limit), on ib when set, in packets on ib by default', async () => {
    // Each receive here is posted after its request to send, or (both ways at once) not advertised: the counts are ready-to-receive's.
    const bulkOn = { DAPL_MPI_CHANNEL_BULK_STREAM: 'on', DAPL_MPI_CHANNEL_ADVERTISE: 'off' };
    const [tcp, tcpCut, ibOn, ibAuto] = await Promise.all([
      run(2, [], 'bulk', { DAPL_MPI_CHANNEL_ADVERTISE: 'off' }),
      run(2, [], 'bulk', { DAPL_TCP_MAX_MESSAGE_SIZE: '1048576', DAPL_MPI_CHANNEL_ADVERTISE: 'off' }),
      run(2, ['--provider', 'ib'], 'bulk', bulkOn),
      run(2, ['--provider', 'ib'], 'bulk'),
    ]);
    const onBulk = ['rank 0: bulk ok (6 bulk sends, 1 bulk receives)', 'rank 1: bulk ok (1 bulk sends, 6 bulk receives)'];
    expect(passed(tcp)).toEqual(onBulk);
    expect(passed(tcpCut)).toEqual(onBulk);
    expect(passed(ibOn)).toEqual(onBulk);
    expect(passed(ibAuto)).toEqual(ranks(2, () => 'bulk ok (0 bulk sends, 0 bulk receives)'));
  }, 120_000);

  it('receiver-initiated rendezvous on the bulk stream (mpi.channel.advertise): a window of 16 sent into advertised receives, an eager message first, truncation, a wildcard ahead, cancel (also of one beside another advertised receive, and of a small one in front of one), 200 tags; on tcp processes (also in the blocking mode and with small thresholds), on ib with the bulk stream; and with it off', async () => {
    const [tcp, blocking, small, ib, off] = await Promise.all([
      run(2, [], 'advertised'),
      run(2, [], 'advertised', { DAPL_MPI_CHANNEL_MODE: 'blocking' }),
      run(2, [], 'advertised', CHANNEL_SMALL),
      run(2, ['--provider', 'ib'], 'advertised', { DAPL_MPI_CHANNEL_BULK_STREAM: 'on' }),
      run(2, [], 'advertised', { DAPL_MPI_CHANNEL_ADVERTISE: 'off' }),
    ]);
    for (const ran of [tcp, blocking, small, ib, off]) expect(passed(ran)).toEqual(['rank 0: advertised sends ok', 'rank 1: advertised receives ok']);
  }, 120_000);

  it('the blocking channel mode: modes on ib at small thresholds and on tcp processes at the default ones', async () => {
    const blocking = { DAPL_MPI_CHANNEL_MODE: 'blocking' };
    const [ib, tcp] = await Promise.all([run(2, ['--provider', 'ib'], 'modes', { ...CHANNEL_SMALL, ...blocking }), run(2, [], 'modes', blocking)]);
    for (const ran of [ib, tcp]) expect(passed(ran)).toEqual(['rank 1: modes ok (83 transfers checked)']);
  }, 120_000);
});

/** The am device (MPI-LAPI over LAPI's active messages) on lapi, the provider that has them, in its three versions. */
describe.each([['base'], ['counters'], ['enhanced']])('MPI point-to-point on the am device (%s) on lapi', (variant) => {
  const am = { DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: variant };
  const run = (n: number, program: string, env: Record<string, string> = {}) => daplRun(['-n', String(n), '--provider', 'lapi', fixture(program)], { ...am, ...env }, KILL_AFTER_MS);

  it('modes (2 ranks), derived datatypes (2), matching (3), errors (3)', async () => {
    await expectFixturesPass(run, {});
  }, 120_000);

  it('communicators (4 ranks), held messages, a lost connection (3), the 4 MiB exchange (4), and a flood within the early-arrival bound (no buffer is held: the sender goes by rendezvous when its room is used)', async () => {
    const flood = await expectRobust(run, {});
    expect(flood.unexpected).toBeGreaterThan(0);
    expect(flood.held).toBe(0);
  }, 120_000);
});

describe('MPI devices are chosen by configuration', () => {
  it('mpi.device am on a provider without active-messages is refused before any rank starts (3), in-process or not, naming the extension', async () => {
    const runs = await Promise.all([
      daplRun(['-n', '2', '--provider', 'ib', 'examples/mpi-pingpong.mjs'], { DAPL_MPI_DEVICE: 'am' }),
      daplRun(['-n', '2', 'examples/mpi-pingpong.mjs'], { DAPL_MPI_DEVICE: 'am' }),
      daplRun(['-n', '2', '--in-process', 'examples/mpi-pingpong.mjs'], { DAPL_MPI_DEVICE: 'am' }),
    ]);
    for (const [i, ran] of runs.entries()) {
      expect(ran.code).toBe(3);
      expect(ran.stdout).toBe('');
      expect(ran.stderr).toBe(
        `dapl run: configuration error: DAT_INVALID_PARAMETER: library @dapl/mpi: mpi.device 'am' needs the active-messages extension, which provider ${i === 0 ? 'ib' : 'tcp'} does not have (it can run: rdma, channel)\n`,
      );
    }
  });

  it('dapl info says which devices each provider can run', async () => {
    const ran = await nodeRun(['packages/core/dist/cli/main.js', 'info', '--json']);
    expect(ran.code).toBe(0);
    const providers = (JSON.parse(ran.stdout) as { providers: { key: string; runs?: { label: string; value: string }[] }[] }).providers;
    const devices = Object.fromEntries(providers.map((p) => [p.key, p.runs?.find((r) => r.label === 'mpi devices')?.value]));
    expect(devices).toMatchObject({ tcp: 'rdma, channel', ib: 'rdma, channel', lapi: 'rdma, channel, am', combuf: 'rdma, channel' });
  });

  it('DAPL_MPI_PROTOCOL_INFO=1 shows the channel device\'s thresholds and mode, and the am device\'s variant', async () => {
    const [channel, am] = await Promise.all([
      daplRun(['-n', '2', '--provider', 'ib', 'examples/mpi-pingpong.mjs'], { DAPL_MPI_PROTOCOL_INFO: '1', ...CHANNEL, DAPL_MPI_CHANNEL_MODE: 'blocking' }, KILL_AFTER_MS),
      daplRun(['-n', '2', '--provider', 'lapi', 'examples/mpi-pingpong.mjs'], { DAPL_MPI_PROTOCOL_INFO: '1', DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: 'counters' }, KILL_AFTER_MS),
    ]);
    const info = (ran: Ran) => {
      expect(ran.code, ran.stderr).toBe(0);
      return ran.stdout.split('\n').filter((l) => l.startsWith('mpi: '));
    };
    expect(info(channel)).toEqual([
      'mpi: device channel (MPICH Channel Interface over DAT send/recv, blocking) on provider ib: 16 receive buffers of 32768 B per peer',
      'mpi: 0..1024 B: short (the data inside the control packet)',
      'mpi: 1025..131072 B: eager (control packet, then the data; buffered at the receiver when unexpected)',
      'mpi: 131073.. B, and synchronous mode at every size: rendezvous (request to send, ready to receive, then the data)',
      'mpi: rendezvous data in packets of up to 32736 B through the receive buffers (mpi.channel.bulkStream auto)',
    ]);
    expect(info(am)).toEqual([
      'mpi: device am (MPI-LAPI, counters: data completion by target counters; handshake completion handlers on the completion thread) on provider lapi: matching in the header handler',
      'mpi: 0..4096 B, standard and ready modes: eager (one Amsend, into the posted receive\'s buffer or an early-arrival buffer; 4194304 B of early-arrival room per peer, rendezvous when none is left)',
      'mpi: 4097.. B, and synchronous mode at every size: rendezvous (request to send; the acknowledgement from a completion handler; the data into the receive\'s buffer)',
    ]);
  }, 120_000);
});

describe('MPI at 16 ranks', () => {
  it.each([['ib'], ['combuf']])('communicators and matching on %s', async (provider) => {
    const [comms, matching] = await Promise.all([
      daplRun(['-n', '16', '--provider', provider, fixture('comms')], {}, KILL_AFTER_MS),
      daplRun(['-n', '16', '--provider', provider, fixture('matching')], {}, KILL_AFTER_MS),
    ]);
    expect(passed(comms)).toEqual(ranks(16, () => 'communicators ok'));
    expect(passed(matching)).toEqual(ranks(16, () => 'matching ok'));
  });

  it('communicators over tcp with 16 ranks in one process', async () => {
    expect(passed(await daplRun(['-n', '16', '--in-process', fixture('comms')], {}, KILL_AFTER_MS))).toEqual(ranks(16, () => 'communicators ok'));
  });
});

describe('MPI jobs tell what they are doing', () => {
  it('a deadlock under the simulator names each rank\'s MPI wait, within seconds, exit 1', async () => {
    const ran = await daplRun(['-n', '2', '--provider', 'ib', fixture('deadlock')], {}, 20_000);
    expect(ran).toMatchObject({ code: 1, killed: false, stdout: '' });
    expect(ran.stderr).toMatch(/deadlock at \d+ ns of virtual time/);
    expect(ran.stderr).toContain('rank 0: MPI recv from rank 1 tag 42 (context 0)');
    expect(ran.stderr).toContain('rank 1: MPI recv from rank 0 tag 42 (context 0)');
  });

  it('DAPL_MPI_PROTOCOL_INFO=1 prints which protocol serves which sizes, once (rank 0)', async () => {
    const ran = await daplRun(['-n', '2', '--provider', 'combuf', 'examples/mpi-pingpong.mjs'], { DAPL_MPI_PROTOCOL_INFO: '1', DAPL_MPI_EAGER_LIMIT: '4096', ...BOUNCE_ON });
    expect(ran.code).toBe(0);
    const info = ran.stdout.split('\n').filter((l) => l.startsWith('mpi: '));
    expect(info).toEqual([
      'mpi: device rdma on provider combuf: one shared receive queue of up to 512 eager buffers of 4096 B (16 posted at first, grown 64 at a time), a window of 64 per peer, 64 send buffers',
      'mpi: 0..4096 B: eager (copied into a pre-registered buffer, one credit; synchronous mode waits for an ACK)',
      'mpi: 4097.. B: rendezvous by RDMA read (the receiver pulls into the user buffer, then FIN)',
      'mpi: 4097..65536 B by a blocking send (send, rsend): copied into a library buffer, the send complete at once, the copy sent as above',
      'mpi: 4097.. B into a receive posted before its message (contiguous, named source and tag): receiver-initiated; the receive is advertised and the sender writes into it with immediate, also when its RTS went first',
    ]);
  });

  it('an unknown or bad MPI setting is refused at init, naming it (a job started without dapl run)', async () => {
    const [unknown, bad] = await Promise.all([
      nodeRun(['examples/mpi-pingpong.mjs'], { DAPL_MPI_EAGER_LIMT: '5' }),
      nodeRun(['examples/mpi-pingpong.mjs'], { DAPL_MPI_RENDEZVOUS: 'sideways' }),
    ]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('MPI_ERR_ARG: unknown MPI setting mpi.eagerLimt (env DAPL_MPI_EAGER_LIMT)');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/MPI_ERR_ARG: .*mpi\.rendezvous.*sideways/);
  });

  it('dapl info lists the mpi section with each value and its source, and exits 3 on a setting MPI does not declare', async () => {
    const info = ['packages/core/dist/cli/main.js', 'info', '--json'];
    const [good, unknown] = await Promise.all([nodeRun(info, { DAPL_MPI_EAGER_LIMIT: '4k' }), nodeRun(info, { DAPL_MPI_EAGER_LIMT: '5' })]);
    expect(good.code).toBe(0);
    const mpi = (JSON.parse(good.stdout) as { libraries: { section: string; library: string; parameters: { key: string; value: unknown; source: string }[] }[] }).libraries.find((l) => l.section === 'mpi');
    expect(mpi?.library).toBe('@dapl/mpi');
    expect(mpi?.parameters.find((p) => p.key === 'mpi.eagerLimit')).toMatchObject({ value: 4096, source: 'env DAPL_MPI_EAGER_LIMIT' });
    expect(mpi?.parameters.find((p) => p.key === 'mpi.rendezvous')).toMatchObject({ value: 'auto', source: 'default' });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toBe('dapl info: library @dapl/mpi has no setting mpi.eagerLimt (env DAPL_MPI_EAGER_LIMT) (see the report above)\n');
  });

  it('dapl run refuses an unknown or bad MPI setting before any rank starts (3), in-process or not', async () => {
    const runs = await Promise.all(
      [[], ['--in-process']].flatMap((launch) => [
        daplRun(['-n', '2', ...launch, 'examples/mpi-pingpong.mjs'], { DAPL_MPI_EAGER_LIMT: '5' }),
        daplRun(['-n', '2', ...launch, 'examples/mpi-pingpong.mjs'], { DAPL_MPI_RENDEZVOUS: 'sideways' }),
      ]),
    );
    for (const [i, ran] of runs.entries()) {
      expect(ran.code).toBe(3);
      expect(ran.stdout).toBe('');
      expect(ran.stderr).toMatch(
        i % 2 === 0
          ? /^dapl run: configuration error: .*library @dapl\/mpi has no setting mpi\.eagerLimt \(env DAPL_MPI_EAGER_LIMT\); it declares: mpi\.device, [^\n]*\n$/
          : /^dapl run: configuration error: .*invalid value for mpi\.rendezvous from env DAPL_MPI_RENDEZVOUS: "sideways"[^\n]*\n$/,
      );
    }
  });
});
