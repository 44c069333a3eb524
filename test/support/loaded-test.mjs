#!/usr/bin/env node
// Run the test suite (or the vitest arguments given) with two CPU-burning processes beside it, as
// on a shared, loaded host: the tests must assert what happened, never how fast.
//   node test/support/loaded-test.mjs                      the whole suite (npm test's vitest run)
//   node test/support/loaded-test.mjs test/mpi-coll.test.ts
// The burners end with the run, whatever its outcome; the exit code is vitest's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BURNERS = 2;
const burn = 'for (;;) { Math.sqrt(Math.random()); }';
const burners = Array.from({ length: BURNERS }, () => spawn(process.execPath, ['-e', burn], { stdio: 'ignore' }));
const stop = () => {
  for (const b of burners) b.kill('SIGKILL');
};
process.on('exit', stop);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stop();
    process.exit(130);
  });
}

const started = Date.now();
process.stderr.write(`loaded-test: ${BURNERS} CPU burners (pids ${burners.map((b) => b.pid).join(', ')}) beside vitest run ${process.argv.slice(2).join(' ')}\n`);
const vitest = spawn(process.execPath, [fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
vitest.on('exit', (code, signal) => {
  stop();
  process.stderr.write(`loaded-test: vitest ended (${signal ?? `exit ${code}`}) after ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  process.exit(code ?? 1);
});
