// FMPL ping-pong between ranks 0 and 1: blocking send / recv by matching-area index (zero copy,
// sender-side matching), 1 B to 1 MiB, contents checked, and the one-way time on the rank's clock.
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
  const rounds = 5;
  let oneWay = 0;
  // Round 0 is not timed: it opens the connection and registers the buffers.
  for (let r = 0; r <= rounds; r++) {
    if (rank === 0) {
      const start = fmpl.wtime();
      await fmpl.send(out, 1, 0);
      await fmpl.recv(back, 1, 1);
      if (r > 0) oneWay += (fmpl.wtime() - start) / 2;
    } else if (rank === 1) {
      await fmpl.recv(back, 0, 0);
      await fmpl.send(back, 0, 1);
    }
  }
  if (rank === 0) {
    if (!back.every((b, i) => b === ((i * 5 + n) & 0xff))) throw new Error(`fmpl-pingpong: ${n} B came back wrong`);
    process.stdout.write(`fmpl-pingpong: ${n} B ok, ${((oneWay / rounds) * 1e6).toFixed(2)} us one way on ${fmpl.provider}\n`);
  }
}
await fmpl.finalize();
