import type { CliCommand } from './cli-types.js';
import { infoCommand } from './info-command.js';
import { runCommand } from './run-command.js';
import { reproduceCommand } from './reproduce-command.js';
import { createHelpCommand } from './help-command.js';

/** Every `dapl` subcommand; a new one is a new row. */
export const COMMANDS: readonly CliCommand[] = [infoCommand, runCommand, reproduceCommand, createHelpCommand(() => COMMANDS)];
