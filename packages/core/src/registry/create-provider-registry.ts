import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { DaplConfig } from '../config/dapl-config.js';
import { parseDatConf, type DatConfParseResult } from '../config/dat-conf.js';
import { DAT_OVERRIDE_ENV } from '../config/core-parameters.js';
import { ProviderRegistry } from './provider-registry.js';
import type { ModuleImporter } from './import-module.js';

/** The registry a configuration describes: its `providers`, the dat.conf of `DAT_OVERRIDE`, the built-ins. */
export async function createProviderRegistry(config: DaplConfig, options: { importer?: ModuleImporter } = {}): Promise<ProviderRegistry> {
  const datConf = config.datConfPath === undefined ? undefined : await readDatConf(config.datConfPath);
  return new ProviderRegistry({ configured: config.extraProviders, datConf, importer: options.importer });
}

async function readDatConf(path: string): Promise<DatConfParseResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    throw new DatError(DatStatus.INVALID_PARAMETER, `dat.conf ${path} (from ${DAT_OVERRIDE_ENV}) cannot be read (${code ?? String(cause)})`, {
      argument: DAT_OVERRIDE_ENV,
      cause,
    });
  }
  return parseDatConf(text, { file: path, baseDir: dirname(path) });
}
