import { configWarnings, type DeclaredSettings } from '../config/config-warnings.js';
import type { DaplConfig } from '../config/dapl-config.js';
import { loadLibrarySections } from '../config/library-sections.js';
import { packageName } from './import-module.js';
import type { ProviderRegistry } from './provider-registry.js';

/**
 * `configWarnings` against every section anything declares: each registered provider that loads
 * (one that does not is not this check's business: `dapl info` says why) and each installed library.
 */
export async function configurationWarnings(config: DaplConfig, registry: ProviderRegistry): Promise<string[]> {
  const declared: DeclaredSettings[] = [];
  for (const entry of registry.list()) {
    try {
      const provider = await registry.load(entry.key);
      declared.push({ section: provider.name, parameters: provider.parameters, owner: `provider ${provider.name}` });
    } catch {
      // Not installed or not a provider.
    }
  }
  for (const library of await loadLibrarySections()) declared.push({ section: library.name, parameters: library.parameters, owner: `library ${packageName(library.specifier)}` });
  return configWarnings(config, declared);
}
