import { register } from 'node:module';
import { inProcessState } from './in-process-state.js';

/** The query parameters that name a rank's copy of a module: `<file>?dapl-job=<id>&dapl-rank=<r>`. */
export const JOB_PARAMETER = 'dapl-job';
export const RANK_PARAMETER = 'dapl-rank';

/** The global a privatised module's first statement calls (see `enterRankModule`). */
export const ENTER_RANK_MODULE_KEY = '@dapl/core/enter-rank-module';

/**
 * Node loader hooks (`module.register`) that give each rank its own instance of a program's
 * modules. They run on the loader thread, which cannot see the ranks' AsyncLocalStorage, so the
 * rank travels in the URL: a module imported from a module whose URL carries `dapl-job` and
 * `dapl-rank` gets them too, unless it is a package, that is a bare specifier (workspace packages
 * are symlinks that resolve outside node_modules) or a file under node_modules. Packages,
 * @dapl/* among them, stay shared: one instance per process.
 *
 * `load` prefixes every privatised ES module with a call that re-enters its rank's context: a
 * module that depends on a shared module with top-level await is run when that module finishes,
 * in the context of whichever rank started it. The call goes on the first line (after a `#!`
 * line), so line numbers in stack traces stay right.
 *
 * Kept as source text, registered as a data: URL: the hooks then need no file next to the
 * compiled code, and the same text runs under the test runner, which runs this package's sources.
 */
export const PRIVATISATION_HOOKS_SOURCE = `
const PARAMETERS = [${JSON.stringify(JOB_PARAMETER)}, ${JSON.stringify(RANK_PARAMETER)}];
const PROLOGUE = 'globalThis[Symbol.for(${JSON.stringify(ENTER_RANK_MODULE_KEY)})]?.(import.meta.url);';

function rankOf(url) {
  if (typeof url !== 'string' || !url.startsWith('file:')) return undefined;
  const { searchParams } = new URL(url);
  return searchParams.has(PARAMETERS[1]) ? searchParams : undefined;
}

function isPackageSpecifier(specifier) {
  return !/^(\\.{1,2}(\\/|$)|\\/|file:|#)/.test(specifier);
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const rank = rankOf(context.parentURL);
  if (rank === undefined || isPackageSpecifier(specifier) || !resolved.url.startsWith('file:')) return resolved;
  const url = new URL(resolved.url);
  if (url.pathname.includes('/node_modules/')) return resolved;
  for (const name of PARAMETERS) if (rank.has(name)) url.searchParams.set(name, rank.get(name));
  return { ...resolved, url: url.href };
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (loaded.format !== 'module' || loaded.source == null || rankOf(url) === undefined) return loaded;
  const text = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  const afterShebang = text.startsWith('#!') ? text.indexOf('\\n') + 1 : 0;
  if (text.startsWith('#!') && afterShebang === 0) return loaded;
  return { ...loaded, source: text.slice(0, afterShebang) + PROLOGUE + text.slice(afterShebang) };
}
`;

/** Register the hooks, once per process (every later import in the process passes through them). */
export function registerPrivatisationHooks(): void {
  if (inProcessState.hooksRegistered) return;
  register(`data:text/javascript,${encodeURIComponent(PRIVATISATION_HOOKS_SOURCE)}`);
  inProcessState.hooksRegistered = true;
}
