#!/usr/bin/env node
/** The `dapl` executable: wires the process to `runCli`. */
import { runCli } from './run-cli.js';

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
setTimeout(() => process.exit(code), 2000).unref();
