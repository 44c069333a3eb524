import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CliOption } from './cli-types.js';

/** The command's options as parseArgs takes them. */
export function parseArgsOptions(options: readonly CliOption[]): NonNullable<ParseArgsConfig['options']> {
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const o of options) config[o.name] = o.short === undefined ? { type: o.type } : { type: o.type, short: o.short };
  return config;
}

/** How an option is written in a message: `-n/--np` or `--provider`. */
function spelled(option: CliOption): string {
  return option.short === undefined ? `--${option.name}` : `-${option.short}/--${option.name}`;
}

/**
 * The first thing wrong with a command's own arguments, said in the command's terms, or undefined.
 * Node's parseArgs messages name its API ("place it at the end of the command after '--'") and it
 * lets a repeated option silently replace the first; this reads the same tokens and says what to fix.
 */
export function firstArgumentProblem(commandName: string, options: readonly CliOption[], args: readonly string[], allowPositionals: boolean): string | undefined {
  const byName = new Map(options.map((o) => [o.name, o]));
  const { tokens } = parseArgs({ args: [...args], options: parseArgsOptions(options), strict: false, allowPositionals: true, tokens: true });
  const seen = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind === 'positional') {
      if (!allowPositionals) return `unexpected argument '${token.value}': dapl ${commandName} takes none`;
      continue;
    }
    if (token.kind !== 'option') continue;
    const option = byName.get(token.name);
    if (option === undefined) {
      return `unknown option '${token.rawName}'; dapl ${commandName} takes ${options.map(spelled).join(', ')}`;
    }
    if (option.type === 'boolean') {
      if (token.inlineValue === true) return `option ${spelled(option)} takes no value, got "${token.value}"`;
      continue;
    }
    if (token.value === undefined) return `option ${spelled(option)} needs a value`;
    if (token.inlineValue === false && token.value.startsWith('-')) {
      return `option ${spelled(option)} needs a value, got the option '${token.value}' (if that is the value, write --${option.name}=${token.value})`;
    }
    const earlier = seen.get(option.name);
    if (earlier !== undefined) return `option ${spelled(option)} given twice ("${earlier}" and "${token.value}"); give it once`;
    seen.set(option.name, token.value);
  }
  return undefined;
}
