import { DaplConfig } from '../config/dapl-config.js';
import { DatStatus } from '../dat/status.js';
import { createProviderRegistry } from '../registry/create-provider-registry.js';
import { createRootLogger } from '../logging/root-logger.js';
import { ExitCode, type CliCommand } from './cli-types.js';
import { gatherInfo, librarySettingsProblem, selectedProviderProblem } from './info-report.js';
import { renderInfoJson, renderInfoText } from './info-render.js';
import { renderInfoMarkdown } from './info-markdown.js';
import { coreVersion } from './version.js';

export const infoCommand: CliCommand = {
  name: 'info',
  summary: 'List providers, their capabilities and parameters, and the effective configuration',
  usage: 'dapl info [--provider KEY] [--config FILE] [--json | --markdown]',
  description: [
    'Lists every provider registry key with where it was defined, and for each provider that loads its',
    'capabilities and declared parameters with their effective values. The selected provider\'s IA is',
    'opened with those values to show its limits and address, then closed. Then the settings of each',
    'installed upper library that has some (mpi.*), and last the configuration of core\'s own keys,',
    'each with the layer it came from (flag > environment > config file > default).',
    '',
    'Exit status: 0 ok, 2 usage error, 3 configuration error (bad value, a setting the selected',
    'provider or an installed library does not declare, unknown or unloadable selected provider, a',
    'value the IA refuses when it opens, such as a tcp.interface this host does not have), 1 other',
    'failure (e.g. the IA could not be opened).',
  ].join('\n'),
  options: [
    { name: 'provider', type: 'string', valueName: 'KEY', help: 'Select this provider (overrides DAPL_PROVIDER and the config file)' },
    { name: 'config', type: 'string', valueName: 'FILE', help: 'Read this config file instead of DAPL_CONFIG or ./dapl.config.json' },
    { name: 'json', type: 'boolean', help: 'Print the report as one JSON document' },
    { name: 'markdown', type: 'boolean', help: 'Print every declared setting with its default as a Markdown reference (docs/configuration.md)' },
  ],
  async run({ values }, io) {
    const flags = typeof values.provider === 'string' ? { provider: values.provider } : {};
    const configFile = typeof values.config === 'string' ? values.config : undefined;
    const config = await DaplConfig.load({ env: io.env, cwd: io.cwd, flags, configFile });
    const registry = await createProviderRegistry(config);
    registry.lookup(config.providerKey); // an unknown key is a configuration error before any output
    const logger = createRootLogger({ level: config.logLevel, destination: { write: (line: string) => io.stderr.write(line) } });
    const report = await gatherInfo({ config, registry, logger, iaTimeoutMs: io.iaTimeoutMs, version: coreVersion() });
    if (values.json === true && values.markdown === true) {
      io.stderr.write('dapl info: --json and --markdown are two formats of one report: give one\n');
      return ExitCode.USAGE;
    }
    io.stdout.write(values.json === true ? renderInfoJson(report) : values.markdown === true ? renderInfoMarkdown(report) : renderInfoText(report));

    const problem = selectedProviderProblem(report) ?? librarySettingsProblem(report);
    if (problem !== undefined) {
      io.stderr.write(`dapl info: ${problem} (see the report above)\n`);
      return ExitCode.CONFIGURATION;
    }
    const selected = report.providers.find((p) => p.selected);
    if (selected?.loaded === true && selected.ia?.opened === false) {
      io.stderr.write(`dapl info: the IA of "${selected.key}" could not be opened: ${selected.ia.error}\n`);
      // A value the provider refuses only when it opens (an interface this host does not have) is configuration too.
      return selected.ia.status === DatStatus.INVALID_PARAMETER ? ExitCode.CONFIGURATION : ExitCode.FAILURE;
    }
    return ExitCode.OK;
  },
};
