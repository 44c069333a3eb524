// FMPL broadcast from every root in turn, 8 KiB and 1 MiB, with the time per broadcast on the rank's
// clock and the path it took (SR8000 hardware broadcast on combuf when the ranks form a rectangle or
// hypercube of the crossbar, else a binary tree of FMPL sends). On tcp these are single broadcasts
// while V8 still compiles their path, several times the steady state: bench/fmpl.mjs gives that.
//
//   npx dapl run -n 4 examples/fmpl-bcast.mjs
//   npx dapl run -n 16 --provider combuf examples/fmpl-bcast.mjs
import { Fmpl } from '@dapl/fmpl';

const fmpl = await Fmpl.init({ matchingAreas: 4 });
const { rank, size } = fmpl;
for (const n of [8192, 1 << 20]) {
  let total = 0;
  for (let root = 0; root < size; root++) {
    const buf = rank === root ? new Uint8Array(n).map((_, i) => (i + root) & 0xff) : new Uint8Array(n);
    await fmpl.barrier();
    const start = fmpl.wtime();
    await fmpl.bcast(buf, root);
    total += fmpl.wtime() - start;
    if (!buf.every((b, i) => b === ((i + root) & 0xff))) throw new Error(`rank ${rank}: bcast of ${n} B from ${root} arrived wrong`);
  }
  const c = fmpl.counters();
  if (rank === 0) process.stdout.write(`fmpl-bcast: ${n} B from each of ${size} roots ok, ${((total / size) * 1e6).toFixed(2)} us each on ${fmpl.provider} (${c.hwBcasts > 0 ? 'hardware' : 'software'})\n`);
}
await fmpl.finalize();
