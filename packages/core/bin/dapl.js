#!/usr/bin/env node
// The `dapl` command. A committed shim, so npm can link it before the TypeScript is built.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('dapl: @dapl/core is not built yet; run `npm run build` (tsc -b) in the repository first\n');
  process.exit(1);
}
await import(main.href);
