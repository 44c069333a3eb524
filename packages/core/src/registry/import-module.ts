import { fileURLToPath, pathToFileURL } from 'node:url';
import { isPathSpecifier } from '../config/module-specifier.js';

/** Imports a module by specifier; injectable so the registry can be tested without real files. */
export type ModuleImporter = (specifier: string) => Promise<Record<string, unknown>>;

/**
 * The default importer. Paths become file URLs; bare specifiers are imported from here, so
 * they resolve from core's own location (which finds workspace and sibling packages).
 */
export const importModule: ModuleImporter = async (specifier) => {
  const target = isPathSpecifier(specifier) && !specifier.startsWith('file:') ? pathToFileURL(specifier).href : specifier;
  return (await import(/* @vite-ignore */ target)) as Record<string, unknown>;
};

/**
 * Whether an import failure is a missing module: `self` when `specifier` itself was not found,
 * `entry` when its package was found but not the file it points to (a package not built),
 * `dependency` when something it imports was not found, undefined for any other failure.
 */
export function missingModule(error: unknown, specifier: string): 'self' | 'entry' | 'dependency' | undefined {
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' && !/Cannot find (package|module)|Failed to load url/.test(message)) return undefined;
  const names = isPathSpecifier(specifier) ? pathForms(specifier) : [packageName(specifier)];
  const named = (name: string): boolean => message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`${name} `);
  if (names.some(named)) return 'self';
  if (!isPathSpecifier(specifier) && message.includes(`node_modules/${packageName(specifier)}/`)) return 'entry';
  return 'dependency';
}

function pathForms(specifier: string): string[] {
  if (specifier.startsWith('file:')) return [specifier, fileURLToPath(specifier)];
  return [specifier, pathToFileURL(specifier).href];
}

/** `@scope/pkg/sub` → `@scope/pkg`; `pkg/sub` → `pkg`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
