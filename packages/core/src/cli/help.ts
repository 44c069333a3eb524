import type { CliCommand, CliOption } from './cli-types.js';

export const HELP_OPTION: CliOption = { name: 'help', type: 'boolean', short: 'h', help: 'Show this help' };

export function renderGeneralHelp(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: dapl <command> [options]',
    '',
    'dapl.ts: a uDAPL/DAT-style portable transport with plug-in providers.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    '  -h, --help     Show this help',
    '  -V, --version  Print the version of @dapl/core',
    '',
    "Run 'dapl <command> --help' for the options of a command.",
    'Configuration precedence: flag > environment (DAPL_<SECTION>_<KEY>) > dapl.config.json > default.',
    '',
  ].join('\n');
}

export function renderCommandHelp(command: CliCommand): string {
  const options = [...command.options, HELP_OPTION];
  const labels = options.map(optionLabel);
  const width = Math.max(...labels.map((l) => l.length));
  return [
    `Usage: ${command.usage}`,
    '',
    command.description,
    '',
    'Options:',
    ...options.map((o, i) => `  ${labels[i]!.padEnd(width)}  ${o.help}`),
    '',
  ].join('\n');
}

function optionLabel(option: CliOption): string {
  const long = `--${option.name}${option.type === 'string' ? ` ${option.valueName ?? 'VALUE'}` : ''}`;
  return option.short === undefined ? `    ${long}` : `-${option.short}, ${long}`;
}
