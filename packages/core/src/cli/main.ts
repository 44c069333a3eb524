#!/usr/bin/env node
/** The `dapl` executable: wires the process to `runCli`. */
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2), { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
// A provider that timed out may still hold sockets or timers; do not let them keep `dapl` alive.
setTimeout(() => process.exit(code), 2000).unref();
