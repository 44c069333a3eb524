// A token passed around a ring of ranks by RDMA write with immediate data, using only the DAT
// API. Each rank exposes an 8-byte mailbox; the token is written into the right neighbour's
// mailbox and the immediate (the lap number) rings its doorbell. Every rank adds rank + 1 on
// each lap, so after L laps rank 0 holds L · N(N+1)/2, which it checks.
//
//   node examples/dat-ring.mjs [laps]                    a job of size 1 (the ring is one rank)
//   npx dapl run -n 4 examples/dat-ring.mjs [laps]       four processes over tcp
//   mpiexec.mpich -n 4 node examples/dat-ring.mjs        the same under MPICH's Hydra
import { DtoStatus, MemAccess, startJob } from '@dapl/core';

const laps = Number(process.argv[2] ?? 10);
if (!Number.isInteger(laps) || laps < 1) {
  process.stderr.write(`usage: dat-ring.mjs [laps ≥ 1], got ${process.argv[2]}\n`);
  process.exit(2);
}

const job = await startJob();
const { rank, size, runtime, connections } = job;
const right = (rank + 1) % size;
const left = (rank + size - 1) % size;

// The mailbox the left neighbour writes into, and the word this rank sends from.
const pz = connections.pz;
const mailbox = new BigUint64Array(1);
const mailboxLmr = pz.registerLmr(mailbox, MemAccess.ALL);
const rmr = pz.createRmr();
const exposed = rmr.bind(mailboxLmr, 0, 8, MemAccess.REMOTE_WRITE);
const outgoing = new BigUint64Array(1);
const outgoingLmr = pz.registerLmr(outgoing, MemAccess.LOCAL);

// RMR triplets are plain data: publish ours, read the right neighbour's.
await runtime.put(`ring-mailbox-${rank}`, `${exposed.rmrContext.toString(16)}.${exposed.targetOffset}.${exposed.length}`);
await runtime.fence();
const [context, offset, length] = (await runtime.get(`ring-mailbox-${right}`)).split('.');
const target = { rmrContext: BigInt(`0x${context}`), targetOffset: Number(offset), length: Number(length) };

const toRight = await connections.endpoint(right);
if (size > 1) await connections.endpoint(left);
const { recv, request } = connections.evds;

/** The next completion on `evd` of the given op; a failure ends the job. */
async function next(evd, op) {
  const event = await evd.wait({ timeoutMs: 30_000 });
  if (event.type !== 'dto-completion' || event.op !== op || event.status !== DtoStatus.SUCCESS) {
    await runtime.abort(3, `rank ${rank}: expected a successful ${op}, got ${event.type} ${event.op ?? ''} ${event.status ?? event.reason ?? ''}`);
  }
  return event;
}

async function pass(value, lap) {
  outgoing[0] = value;
  toRight.postRdmaWrite([{ lmr: outgoingLmr, offset: 0, length: 8 }], lap, target, { immediate: lap });
  await next(request, 'rdma-write-immediate');
}

for (let lap = 1; lap <= laps; lap++) {
  if (rank === 0) await pass((lap === 1 ? 0n : mailbox[0]) + 1n, lap);
  const doorbell = await next(recv, 'recv-immediate');
  if (doorbell.immediate !== lap) await runtime.abort(4, `rank ${rank}: doorbell for lap ${doorbell.immediate} during lap ${lap}`);
  if (rank !== 0) await pass(mailbox[0] + BigInt(rank + 1), lap);
}

process.stdout.write(`rank ${rank} of ${size}: passed the token ${laps} times\n`);
if (rank === 0) {
  const expected = BigInt(laps) * BigInt((size * (size + 1)) / 2);
  const ok = mailbox[0] === expected;
  process.stdout.write(`dat-ring: ${size} rank${size === 1 ? '' : 's'}, ${laps} laps, token ${mailbox[0]} (expected ${expected}): ${ok ? 'OK' : 'WRONG'}\n`);
  if (!ok) await runtime.abort(1, 'the token came back wrong');
}
await job.finish();
