// Every rank says who it is and where its right-hand neighbour listens.
//
//   node examples/dat-hello.mjs                       a job of size 1
//   npx dapl run -n 4 examples/dat-hello.mjs          four processes over tcp
//   mpiexec.mpich -n 4 node examples/dat-hello.mjs    the same under MPICH's Hydra
import { startJob } from '@dapl/core';

const job = await startJob();
const { rank, size, runtime, ia } = job;

await runtime.put(`hello-address-${rank}`, ia.address);
await runtime.fence();
const right = (rank + 1) % size;
const neighbour = await runtime.get(`hello-address-${right}`);

process.stdout.write(`rank ${rank} of ${size}: provider ${ia.query().provider}, my IA at ${ia.address}, rank ${right}'s IA at ${neighbour}\n`);
await job.finish();
