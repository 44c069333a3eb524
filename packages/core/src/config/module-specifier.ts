import { isAbsolute, resolve } from 'node:path';

/** True for `./x`, `../x`, `.` and `..`: specifiers that name a file relative to something. */
export function isRelativeSpecifier(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

/** True for specifiers that name a file: relative, absolute or `file:` URLs (everything but packages). */
export function isPathSpecifier(specifier: string): boolean {
  return isRelativeSpecifier(specifier) || isAbsolute(specifier) || specifier.startsWith('file:');
}

/**
 * Resolve a relative specifier against `baseDir` to an absolute path; absolute paths, `file:`
 * URLs and bare package names are returned unchanged. Pure (no file-system access).
 */
export function resolveModuleSpecifier(specifier: string, baseDir: string): string {
  return isRelativeSpecifier(specifier) ? resolve(baseDir, specifier) : specifier;
}
