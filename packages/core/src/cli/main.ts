#!/usr/bin/env node
/** The `dapl` executable: wires the process to `runCli`. */
import { runCli } from './run-cli.js';

// A closed pipe on our output is the command's to judge (dapl run stops its job): never a crash.
const ignoreClosedPipe = (error: NodeJS.ErrnoException): void => {
  if (error.code !== 'EPIPE') throw error;
};
process.stdout.on('error', ignoreClosedPipe);
process.stderr.on('error', ignoreClosedPipe);

const code = await runCli(process.argv.slice(2), { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
// The command is over: exit once our output is flushed, whatever an abandoned rank or a provider
// that timed out still holds (sockets, EVD wait timers). Waiting for them would delay the exit.
let pending = 2;
const done = (): void => {
  if (--pending === 0) process.exit(code);
};
process.stdout.write('', done);
process.stderr.write('', done);
// No exit before that: a reader that is slow (`dapl run … | (sleep 5; wc -l)`) gets every line, and
// one that never reads blocks us as it would any program writing to a pipe.
