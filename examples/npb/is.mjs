// NAS Parallel Benchmarks IS (integer sort), the MPI version's algorithm: each rank generates its
// share of the keys (NPB's generator, its seed found by jumping), and every iteration buckets them,
// sums the bucket sizes with an allreduce, gives each rank a run of buckets holding about the same
// number of keys, exchanges the counts (alltoall) and the keys (alltoallv), and ranks its keys by
// counting. Five test keys per iteration are checked against NPB's official ranks (partial
// verification), and at the end the keys must be sorted across ranks (full verification).
//
//   node examples/npb/is.mjs S
//   npx dapl run -n 4 examples/npb/is.mjs W
import { Mpi, Op } from '@dapl/mpi';
import { nextSeed, printResults, timeMeasured } from './common.mjs';

const CLASSES = {
  S: { totalKeysLog2: 16, maxKeyLog2: 11, bucketsLog2: 9, index: [48427, 17148, 23627, 62548, 4431], rank: [0, 18, 346, 64917, 65463] },
  W: { totalKeysLog2: 20, maxKeyLog2: 16, bucketsLog2: 10, index: [357773, 934767, 875723, 898999, 404505], rank: [1249, 11698, 1039987, 1043896, 1048018] },
};
const MAX_ITERATIONS = 10;
const TEST_ARRAY_SIZE = 5;
const R46 = 2 ** -46;

const mpi = await Mpi.init();
const world = mpi.world;
const { rank: me, size } = world;
const cls = (process.argv[2] ?? 'S').toUpperCase();
if (!(cls in CLASSES)) {
  if (me === 0) process.stderr.write(`usage: is.mjs [S|W], got ${process.argv[2]}\n`);
  await world.barrier(); // rank 0's message is out before any rank's abort ends the job
  await mpi.abort(2, 'unknown class');
}
const C = CLASSES[cls];
const TOTAL_KEYS = 2 ** C.totalKeysLog2;
const MAX_KEY = 2 ** C.maxKeyLog2;
const NUM_BUCKETS = 2 ** C.bucketsLog2;
const SHIFT = C.maxKeyLog2 - C.bucketsLog2;
if (TOTAL_KEYS % size !== 0 || size > NUM_BUCKETS) {
  if (me === 0) process.stderr.write(`is.mjs: the number of ranks must divide ${TOTAL_KEYS} keys (a power of two), got ${size}\n`);
  await mpi.abort(2, 'unsupported number of ranks');
}
const NUM_KEYS = TOTAL_KEYS / size;

/** NPB's find_my_seed: the generator jumped past the 4·NUM_KEYS numbers of each lower rank. */
function findMySeed(kn, np, nn, s, a) {
  if (kn === 0) return s;
  const mq = Math.floor((nn / 4 + np - 1) / np);
  const nq = mq * 4 * kn;
  let t1 = s;
  let t2 = a;
  let kk = nq;
  while (kk > 1) {
    const ik = Math.floor(kk / 2);
    if (2 * ik === kk) {
      t2 = nextSeed(t2, t2);
      kk = ik;
    } else {
      t1 = nextSeed(t1, t2);
      kk -= 1;
    }
  }
  return nextSeed(t1, t2);
}

// create_seq: each key is MAX_KEY/4 × the sum of four uniform numbers.
const keys = new Int32Array(NUM_KEYS);
{
  const a = 1220703125;
  let seed = findMySeed(me, size, 4 * TOTAL_KEYS, 314159265, a);
  const k = MAX_KEY / 4;
  for (let i = 0; i < NUM_KEYS; i++) {
    let x = 0;
    for (let j = 0; j < 4; j++) {
      seed = nextSeed(seed, a);
      x += R46 * seed;
    }
    keys[i] = Math.trunc(k * x);
  }
}

const bucketSize = new Int32Array(NUM_BUCKETS + TEST_ARRAY_SIZE);
const bucketTotals = new Int32Array(NUM_BUCKETS + TEST_ARRAY_SIZE);
const bucketPtrs = new Int32Array(NUM_BUCKETS);
const sendBuffer = new Int32Array(NUM_KEYS);
let received = new Int32Array(0);
let counts = new Int32Array(0);
let lesser = 0;
let minKey = 0;
let passed = 0;

async function rank(iteration) {
  if (me === 0) {
    keys[iteration] = iteration;
    keys[iteration + MAX_ITERATIONS] = MAX_KEY - iteration;
  }
  bucketSize.fill(0);
  // The test keys, hidden above the buckets so that the allreduce tells everyone their values.
  for (let i = 0; i < TEST_ARRAY_SIZE; i++) if (Math.floor(C.index[i] / NUM_KEYS) === me) bucketSize[NUM_BUCKETS + i] = keys[C.index[i] % NUM_KEYS];
  for (let i = 0; i < NUM_KEYS; i++) bucketSize[keys[i] >> SHIFT]++;
  bucketPtrs[0] = 0;
  for (let i = 1; i < NUM_BUCKETS; i++) bucketPtrs[i] = bucketPtrs[i - 1] + bucketSize[i - 1];
  for (let i = 0; i < NUM_KEYS; i++) sendBuffer[bucketPtrs[keys[i] >> SHIFT]++] = keys[i];
  await world.allreduce(bucketSize, bucketTotals, Op.SUM);

  // Rank j takes the buckets until the running total passes (j + 1) · NUM_KEYS.
  const sendCount = new Int32Array(size);
  const first = new Int32Array(size);
  const last = new Int32Array(size);
  let total = 0;
  let local = 0;
  let j = 0;
  for (let i = 0; i < NUM_BUCKETS; i++) {
    total += bucketTotals[i];
    local += bucketSize[i];
    if (total >= (j + 1) * NUM_KEYS) {
      sendCount[j] = local;
      if (j !== 0) first[j] = last[j - 1] + 1;
      last[j++] = i;
      local = 0;
    }
  }
  for (; j < size; j++) {
    sendCount[j] = 0;
    first[j] = 1;
  }
  const recvCount = new Int32Array(size);
  await world.alltoall(sendCount, recvCount);
  const sdispl = [];
  const rdispl = [];
  for (let r = 0, s = 0, d = 0; r < size; r++) {
    sdispl.push(s);
    rdispl.push(d);
    s += sendCount[r];
    d += recvCount[r];
  }
  const incoming = rdispl[size - 1] + recvCount[size - 1];
  received = new Int32Array(incoming);
  await world.alltoallv(sendBuffer, Array.from(sendCount), sdispl, received, Array.from(recvCount), rdispl);

  // Rank the keys of my range by counting: counts[v − minKey] = keys ≤ v held here.
  minKey = first[me] << SHIFT;
  const maxKey = ((last[me] + 1) << SHIFT) - 1;
  counts = new Int32Array(Math.max(0, maxKey - minKey + 1));
  lesser = 0;
  for (let r = 0; r < me; r++) for (let b = first[r]; b <= last[r]; b++) lesser += bucketTotals[b];
  for (let i = 0; i < incoming; i++) counts[received[i] - minKey]++;
  for (let v = 1; v < counts.length; v++) counts[v] += counts[v - 1];

  // Partial verification: the owner of a test key's value checks its rank.
  for (let i = 0; i < TEST_ARRAY_SIZE; i++) {
    const k = bucketTotals[NUM_BUCKETS + i];
    if (minKey <= k && k <= maxKey) {
      const keyRank = (k - 1 >= minKey ? counts[k - 1 - minKey] : 0) + lesser;
      const want = cls === 'S' ? (i <= 2 ? C.rank[i] + iteration : C.rank[i] - iteration) : i < 2 ? C.rank[i] + (iteration - 2) : C.rank[i] - iteration;
      if (keyRank === want) passed++;
      else process.stdout.write(`Failed partial verification: iteration ${iteration}, processor ${me}, test key ${i}: rank ${keyRank}, expected ${want}\n`);
    }
  }
}

// One untimed iteration to warm everything up, as NPB does.
await rank(1);
passed = 0;
await world.barrier();
const start = mpi.wtime();
for (let iteration = 1; iteration <= MAX_ITERATIONS; iteration++) await rank(iteration);
const seconds = mpi.wtime() - start;

// Full verification: sort my keys by their ranks, and the greatest key of each rank must not
// exceed the least key of the next.
{
  const sorted = new Int32Array(received.length);
  const place = counts.slice();
  for (let i = received.length - 1; i >= 0; i--) sorted[--place[received[i] - minKey]] = received[i];
  const greatest = new Int32Array([sorted.length > 0 ? sorted[sorted.length - 1] : 0]);
  const fromLeft = new Int32Array(1);
  const left = me > 0 ? me - 1 : undefined;
  const right = me < size - 1 ? me + 1 : undefined;
  const pending = [];
  if (left !== undefined) pending.push(world.irecv(fromLeft, left, 1000).wait());
  if (right !== undefined) pending.push(world.isend(greatest, right, 1000).wait());
  await Promise.all(pending);
  let wrong = 0;
  if (left !== undefined && sorted.length > 0 && fromLeft[0] > sorted[0]) wrong++;
  for (let i = 1; i < sorted.length; i++) if (sorted[i - 1] > sorted[i]) wrong++;
  if (wrong !== 0) process.stdout.write(`Processor ${me}: full verification: ${wrong} keys out of sort\n`);
  else passed++;
}
const totalPassed = new Int32Array(1);
await world.reduce(new Int32Array([passed]), totalPassed, Op.SUM, 0);
if (me === 0) {
  const verified = totalPassed[0] === TEST_ARRAY_SIZE * MAX_ITERATIONS + size;
  printResults({ name: 'IS', cls, size: TOTAL_KEYS, iterations: MAX_ITERATIONS, seconds, processes: size, mops: (MAX_ITERATIONS * TOTAL_KEYS) / seconds / 1e6, operation: 'keys ranked', verified, provider: mpi.provider, clock: timeMeasured(mpi) });
  if (!verified) await mpi.abort(1, `IS: ${totalPassed[0]} of ${TEST_ARRAY_SIZE * MAX_ITERATIONS + size} verifications passed`);
}
await mpi.finalize();
