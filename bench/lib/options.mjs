// Command-line options of a benchmark, read the same way by each: an unknown or malformed option
// exits 2 with `program: message; see --help`, --help prints the usage and exits 0, and a value
// check that fails exits 2 naming the option and the value it got.
import { parseArgs } from 'node:util';

export function benchOptions(program, help, options) {
  let values;
  try {
    ({ values } = parseArgs({ args: normalisedArgs(options), options, allowPositionals: false }));
  } catch (error) {
    process.stderr.write(`${program}: ${error.message}; see --help\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${help}\n`);
    process.exit(0);
  }
  /** Exit 2 unless `ok` holds for --option's value (an absent option passes); `must` says what it must do. */
  const check = (option, ok, must) => {
    if (values[option] === undefined || ok(values[option])) return;
    process.stderr.write(`${program}: --${option} must ${must}, got '${values[option]}'\n`);
    process.exit(2);
  };
  /** --option as an integer >= `min` (undefined when absent), or exit 2 naming it. */
  const integer = (option, min) => {
    check(option, (v) => v !== '' && Number.isInteger(Number(v)) && Number(v) >= min, `be an integer >= ${min}`);
    return values[option] === undefined ? undefined : Number(values[option]);
  };
  return { values, check, integer };
}

/**
 * The command line with `-np N` (as MPICH's and Open MPI's users type it) read as `-n N` where -n is
 * an option: parseArgs would read it as -n with the value "p".
 */
function normalisedArgs(options) {
  const args = process.argv.slice(2);
  const ranks = Object.entries(options).find(([, spec]) => spec.short === 'n');
  if (ranks === undefined) return args;
  return args.map((arg) => (arg === '-np' ? '-n' : arg.startsWith('-np=') ? `--${ranks[0]}=${arg.slice(4)}` : arg));
}
