import { ExitCode, UsageError, type CliCommand } from './cli-types.js';
import { renderCommandHelp, renderGeneralHelp } from './help.js';

/** `dapl help [command]`; takes the table lazily because it is itself a row of it. */
export function createHelpCommand(commands: () => readonly CliCommand[]): CliCommand {
  return {
    name: 'help',
    summary: 'Show help for a command',
    usage: 'dapl help [command]',
    description: 'Without a command, lists the commands; with one, shows its usage and options.',
    options: [],
    positionals: ['command'],
    async run({ positionals }, io) {
      if (positionals.length > 1) throw new UsageError(`expected at most one command name, found ${positionals.length}`, 'help');
      const name = positionals[0];
      if (name === undefined) {
        io.stdout.write(renderGeneralHelp(commands()));
        return ExitCode.OK;
      }
      const command = commands().find((c) => c.name === name);
      if (command === undefined) throw new UsageError(`unknown command "${name}"; commands: ${commands().map((c) => c.name).join(', ')}`);
      io.stdout.write(renderCommandHelp(command));
      return ExitCode.OK;
    },
  };
}
