// FMPL ping-pong between ranks 0 and 1: blocking send / recv by matching-area index (zero copy,
// sender-side matching), 1 B to 1 MiB, contents checked, and the one-way time on the rank's clock.
// A blocking receive posts its header only when called, so each one-way time holds two trips: the
// header to the sender, then the body (bench/fmpl.mjs also times receives posted in advance).
//
//   npx dapl run -n 2 examples/fmpl-pingpong.mjs
//   npx dapl run -n 2 --provider combuf examples/fmpl-pingpong.mjs   the Hitachi SR8000, virtual time
import { Fmpl } from '@dapl/fmpl';

const fmpl = await Fmpl.init({ matchingAreas: 4 });
const { rank, size } = fmpl;
if (size < 2) {
  if (rank === 0) process.stderr.write('fmpl-pingpong: needs at least 2 ranks\n');
  await fmpl.finalize();
  process.exit(2);
}
for (const n of [1, 8, 4096, 65536, 1 << 20]) {
  const out = new Uint8Array(n).map((_, i) => (i * 5 + n) & 0xff);
  const back = new Uint8Array(n);
  // As many untimed rounds first: they open the connection, register the buffers and, on a wall
  // clock, run while V8 compiles the path (the first ~2,000 small messages take several times longer).
  const rounds = n <= 65536 ? 2000 : 20;
  let oneWay = 0;
  for (let r = 0; r < 2 * rounds; r++) {
    if (rank === 0) {
      const start = fmpl.wtime();
      await fmpl.send(out, 1, 0);
      await fmpl.recv(back, 1, 1);
      if (r >= rounds) oneWay += (fmpl.wtime() - start) / 2;
    } else if (rank === 1) {
      await fmpl.recv(back, 0, 0);
      await fmpl.send(back, 0, 1);
    }
  }
  if (rank === 0) {
    if (!back.every((b, i) => b === ((i * 5 + n) & 0xff))) throw new Error(`fmpl-pingpong: ${n} B came back wrong`);
    process.stdout.write(`fmpl-pingpong: ${n} B ok, ${((oneWay / rounds) * 1e6).toFixed(2)} us one way on ${fmpl.provider} (mean of ${rounds})\n`);
  }
}
await fmpl.finalize();
