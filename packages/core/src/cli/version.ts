import { readFileSync } from 'node:fs';

/** The version of @dapl/core (the same relative path works from `src/cli` and `dist/cli`). */
export function coreVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
