import { Fmpl } from '@dapl/fmpl';
import { runAsJob } from './lib/job.mjs';
async function main() {
  const fmpl = await Fmpl.init({ matchingAreas: 8 });
  const { rank } = fmpl;
  const out = (t) => rank === 0 && process.stdout.write(t + '\n');
  for (const n of [8192, 8192, 8192, 1 << 20]) {
    const buf = new Uint8Array(n);
    for (const withBarrier of [false, true]) {
      const reps = n > 65536 ? 50 : 2000;
      let total = 0; const t0 = fmpl.wtime(); let bt = 0;
      for (let i = 0; i < reps; i++) {
        if (withBarrier) { const b0 = fmpl.wtime(); await fmpl.barrier(); bt += fmpl.wtime() - b0; }
        const s = fmpl.wtime();
        await fmpl.bcast(buf, 0);
        total += fmpl.wtime() - s;
      }
      out(`${n} barrier=${withBarrier}: bcast ${(total / reps * 1e6).toFixed(1)} us, barrier ${(bt / reps * 1e6).toFixed(1)} us, loop ${((fmpl.wtime() - t0) / reps * 1e6).toFixed(1)}`);
    }
  }
  await fmpl.finalize();
}
await runAsJob(import.meta.url, 2, 'tcp', main);
