import { resolveModuleSpecifier } from './module-specifier.js';

/**
 * A pure parser for the DAT static registry (`dat.conf`, named by `DAT_OVERRIDE`). Each line:
 * `ia_name api_version threadsafety default lib_path provider_version ia_params platform_params`,
 * e.g. `ofa-v2-tcp u2.0 nonthreadsafe default @dapl/provider-tcp dapl.2.0 "tcp0 0" ""`.
 * Here `lib_path` is a module specifier instead of a shared library.
 */

export const DAT_CONF_FIELD_COUNT = 8;

/** One provider line of a `dat.conf` static registry (its eight fields), as `DAT_OVERRIDE` names it. */
export interface DatConfEntry {
  /** The IA name, used as the registry key. */
  readonly iaName: string;
  /** As written, e.g. `u2.0`. */
  readonly apiVersion: string;
  readonly threadSafe: boolean;
  /** `lib_path` as written. */
  readonly libPath: string;
  /** `lib_path` resolved: relative paths against the file's directory. */
  readonly specifier: string;
  readonly providerVersion: string;
  readonly iaParams: string;
  readonly platformParams: string;
  /** 1-based line number. */
  readonly line: number;
}

/** A well-formed line that is not used, and why. */
export interface DatConfSkipped {
  readonly line: number;
  readonly iaName: string;
  readonly reason: string;
}

/** A malformed line. `message` starts with `<file>:<line>: `. */
export interface DatConfProblem {
  readonly line: number;
  readonly message: string;
}

/** A parsed `dat.conf`: the entries used, the well-formed lines skipped and why, and the malformed ones. */
export interface DatConfParseResult {
  readonly file: string;
  readonly entries: readonly DatConfEntry[];
  readonly skipped: readonly DatConfSkipped[];
  readonly errors: readonly DatConfProblem[];
}

/** How `parseDatConf` names the file in its messages and where it resolves relative library paths. */
export interface DatConfParseOptions {
  /** Used in messages (`dat.conf:7: …`). Default `dat.conf`. */
  readonly file?: string;
  /** Where relative `lib_path`s resolve. Default: the current directory. */
  readonly baseDir?: string;
}

/** The fields of one `dat.conf` line, or why it could not be split. */
export type DatConfTokens = { readonly fields: string[] } | { readonly error: string };

/**
 * Split one line into fields: whitespace separates, `"…"` holds spaces (and may be empty),
 * `#` at the start of a field begins a comment.
 */
export function tokenizeDatConfLine(text: string): DatConfTokens {
  const fields: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
    } else if (c === '#') {
      break;
    } else if (c === '"') {
      const close = text.indexOf('"', i + 1);
      if (close < 0) return { error: `unterminated quote in field ${fields.length + 1}` };
      const after = text[close + 1];
      if (after !== undefined && !/\s/.test(after)) return { error: `field ${fields.length + 1} continues after its closing quote` };
      fields.push(text.slice(i + 1, close));
      i = close + 1;
    } else {
      let end = i;
      while (end < text.length && !/\s/.test(text[end]!)) {
        if (text[end] === '"') return { error: `unexpected quote inside field ${fields.length + 1}` };
        end++;
      }
      fields.push(text.slice(i, end));
      i = end;
    }
  }
  return { fields };
}

/** Parse a `dat.conf` static registry: `u…` `default` entries only, the first entry of a name wins, every problem reported with its line. */
export function parseDatConf(text: string, options: DatConfParseOptions = {}): DatConfParseResult {
  const file = options.file ?? 'dat.conf';
  const baseDir = options.baseDir ?? process.cwd();
  const entries: DatConfEntry[] = [];
  const skipped: DatConfSkipped[] = [];
  const errors: DatConfProblem[] = [];
  const firstLineOf = new Map<string, number>();

  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const fail = (what: string): void => void errors.push({ line, message: `${file}:${line}: ${what}` });
    const tokens = tokenizeDatConfLine(raw);
    if ('error' in tokens) return fail(tokens.error);
    const { fields } = tokens;
    if (fields.length === 0) return; // blank or comment
    if (fields.length !== DAT_CONF_FIELD_COUNT) return fail(`expected ${DAT_CONF_FIELD_COUNT} fields, found ${fields.length}`);

    const [iaName, apiVersion, threadSafety, isDefault, libPath, providerVersion, iaParams, platformParams] = fields as [
      string, string, string, string, string, string, string, string,
    ];
    if (iaName === '') return fail('ia_name (field 1) is empty');
    const api = /^([uk])\d+\.\d+$/.exec(apiVersion);
    if (api === null) return fail(`api_version (field 2) "${apiVersion}" must be u<major>.<minor> (uDAPL) or k<major>.<minor> (kDAPL)`);
    if (threadSafety !== 'threadsafe' && threadSafety !== 'nonthreadsafe') {
      return fail(`threadsafety (field 3) "${threadSafety}" must be threadsafe or nonthreadsafe`);
    }
    if (libPath === '') return fail('lib_path (field 5) is empty');

    const skip = (reason: string): void => void skipped.push({ line, iaName, reason });
    if (api[1] === 'k') return skip(`api_version ${apiVersion} is a kernel (kDAPL) entry; only uDAPL (u…) entries are used`);
    if (isDefault !== 'default') return skip(`field 4 is "${isDefault}"; only "default" entries are used`);
    const first = firstLineOf.get(iaName);
    if (first !== undefined) return skip(`duplicate of ${iaName} at line ${first}; the first entry of a name wins`);
    firstLineOf.set(iaName, line);

    entries.push({
      iaName,
      apiVersion,
      threadSafe: threadSafety === 'threadsafe',
      libPath,
      specifier: resolveModuleSpecifier(libPath, baseDir),
      providerVersion,
      iaParams,
      platformParams,
      line,
    });
  });
  return { file, entries, skipped, errors };
}
