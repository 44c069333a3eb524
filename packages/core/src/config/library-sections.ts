import type { ParameterSpec, ProviderCapabilities } from '../dat/provider.js';
import type { ParameterValue } from './parameter-value.js';
import { importModule, missingModule, type ModuleImporter } from '../registry/import-module.js';

/**
 * An upper library's section of the configuration (`mpi.*`, `DAPL_MPI_*`), as the library declares
 * it: the module at `specifier` exports `CONFIG_SECTION` with the section's name and parameters.
 * Core knows the libraries only by these specifiers (as it knows the built-in providers), so that
 * `dapl run` and `dapl info` can check their settings before any rank starts, without importing an
 * upper library statically.
 */
export interface LibrarySection {
  readonly name: string;
  readonly specifier: string;
  readonly parameters: readonly ParameterSpec[];
  /** Why these settings cannot run on provider `provider` (e.g. a device that needs an extension it lacks), or undefined. */
  readonly check?: (values: Readonly<Record<string, ParameterValue>>, provider: string, capabilities: ProviderCapabilities) => string | undefined;
  /** What of the library a provider with these capabilities can run, for `dapl info` (e.g. "mpi devices: rdma, channel"). */
  readonly supports?: (capabilities: ProviderCapabilities) => { readonly label: string; readonly value: string };
}

/** The libraries of this project that have settings, by section name; only installed ones load. */
export const BUILTIN_LIBRARY_SECTIONS: Readonly<Record<string, string>> = {
  mpi: '@dapl/mpi/config',
};

/**
 * The sections of the installed libraries. A library that is not installed (or not built) is left
 * out: a job need not use it. One that loads but exports no valid `CONFIG_SECTION` is a defect of
 * that library and throws.
 */
export async function loadLibrarySections(importer: ModuleImporter = importModule, libraries: Readonly<Record<string, string>> = BUILTIN_LIBRARY_SECTIONS): Promise<LibrarySection[]> {
  const sections: LibrarySection[] = [];
  for (const [name, specifier] of Object.entries(libraries)) {
    let module: Record<string, unknown>;
    try {
      module = await importer(specifier);
    } catch (error) {
      const missing = missingModule(error, specifier);
      // Not exported: an installed version of the library that declares no section.
      if (missing === 'self' || missing === 'entry' || (error as { code?: unknown }).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') continue;
      throw error;
    }
    const section = module.CONFIG_SECTION as { name?: unknown; parameters?: unknown; check?: unknown; supports?: unknown } | undefined;
    if (section?.name !== name || !Array.isArray(section.parameters)) {
      throw new TypeError(`${specifier} does not export CONFIG_SECTION { name: '${name}', parameters: [...] }`);
    }
    sections.push({
      name,
      specifier,
      parameters: section.parameters as ParameterSpec[],
      check: typeof section.check === 'function' ? (section.check as LibrarySection['check']) : undefined,
      supports: typeof section.supports === 'function' ? (section.supports as LibrarySection['supports']) : undefined,
    });
  }
  return sections;
}
