import { DAT_OVERRIDE_ENV, JOB_KEY_ENV } from '../config/core-parameters.js';
import type { IaInfo, InfoReport, LibraryInfo, ParameterInfo, ProviderInfo } from './info-report.js';

/** The report as one JSON document (bigints, if a provider reports any, as decimal strings). */
export function renderInfoJson(report: InfoReport): string {
  return `${JSON.stringify(report, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2)}\n`;
}

/** The report as text for a terminal. */
export function renderInfoText(report: InfoReport): string {
  const out: string[] = [`dapl.ts (@dapl/core ${report.version})`, ''];
  out.push(`Provider registry (selected: ${report.selectedProvider})`);
  out.push(...table(report.registry.map((e) => [e.key === report.selectedProvider ? `* ${e.key}` : `  ${e.key}`, e.specifier, e.source])).map(indent(2)));
  for (const e of report.registry) {
    for (const s of e.shadows) out.push(`  (${e.key} also defined by ${s.source}: ${s.specifier}; overridden)`);
  }
  for (const s of report.datConf?.skipped ?? []) out.push(`  (dat.conf line ${s.line}, ${s.iaName}: skipped, ${s.reason})`);
  for (const p of report.providers) out.push('', ...renderProvider(p));
  for (const l of report.libraries) out.push('', ...renderLibrary(l));
  out.push('', 'Configuration (core)');
  out.push(...renderParameters(report.configuration).map(indent(2)));
  out.push(
    `  config file  ${report.configFile ?? '(none: no --config, DAPL_CONFIG or ./dapl.config.json)'}`,
    `  dat.conf     ${report.datConf?.path ?? `(none: ${DAT_OVERRIDE_ENV} not set)`}`,
    `  job key      ${report.jobKey === 'set' ? `set by ${JOB_KEY_ENV}` : `not set (${JOB_KEY_ENV}); the provider generates one`}`,
    '',
  );
  return out.join('\n');
}

function renderProvider(p: ProviderInfo): string[] {
  const title = `Provider ${p.key}${p.selected ? ' (selected)' : ''}`;
  if (!p.loaded) return [title, `  refused: ${p.error}`];
  const lines = [
    title,
    ...table([
      ['name', p.name],
      ['description', p.description],
      ['apiVersion', String(p.apiVersion)],
      ['dto', list(p.capabilities.dto)],
      ['extensions', list(p.capabilities.extensions)],
      ['inProcess', String(p.capabilities.inProcess)],
      ...(p.capabilities.workerThreads === true ? [['workerThreads', 'true'] as [string, string]] : []),
      ...(p.runs ?? []).map((r): [string, string] => [r.label, r.value]),
    ]).map(indent(2)),
    '  parameters',
    ...(p.parameters.length === 0 ? ['    (none)'] : renderParameters(p.parameters).map(indent(4))),
  ];
  // The selected provider's IA refuses to open with one (a job would stop); another's is only a note.
  for (const u of p.unknownKeys) lines.push(`  ${p.selected ? 'error' : 'warning'}: ${u.key} (${u.source}) is not a parameter of ${p.name}`);
  if (p.ia !== undefined) lines.push('  interface adapter', ...renderIa(p.ia).map(indent(4)));
  return lines;
}

function renderLibrary(l: LibraryInfo): string[] {
  const lines = [`Library ${l.library} (${l.section}.*)`, ...renderParameters(l.parameters).map(indent(2))];
  // A job that loads the library stops on it.
  for (const u of l.unknownKeys) lines.push(`  error: ${u.key} (${u.source}) is not a setting of ${l.library}`);
  return lines;
}

function renderParameters(parameters: readonly ParameterInfo[]): string[] {
  const rows = parameters.map((p) => [
    p.key,
    p.error === undefined ? `= ${String(p.value)}` : '= (invalid)',
    p.error === undefined ? `(${p.source})` : '',
    typeColumn(p),
    `default ${String(p.default)}`,
    p.env,
  ]);
  const lines: string[] = [];
  table(rows).forEach((row, i) => {
    const p = parameters[i]!;
    lines.push(row, `    ${p.help}`);
    if (p.error !== undefined) lines.push(`    error: ${p.error}`);
  });
  return lines;
}

/** `integer [0, 65535]`, `enum fast|safe`: the short form of what is allowed. */
function typeColumn(p: ParameterInfo): string {
  if (p.type === 'enum') return `enum ${(p.values ?? []).join('|')}`;
  if (p.min === undefined && p.max === undefined) return p.type;
  return `${p.type} [${p.min ?? '-∞'}, ${p.max ?? '∞'}]`;
}

function renderIa(ia: IaInfo): string[] {
  if (!ia.opened) return [`not opened: ${ia.error}`];
  const limits = Object.entries(ia.limits).map(([k, v]) => [k, Array.isArray(v) ? `[${v.join(', ')}]` : String(v)]);
  return table([
    ['name', ia.name],
    ['address', ia.address],
    ['dto', list(ia.capabilities)],
    ['extensions', list(ia.extensions)],
    ...limits,
  ]);
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

function list(items: readonly string[]): string {
  return items.length === 0 ? '(none)' : items.join(', ');
}

function indent(n: number): (line: string) => string {
  const pad = ' '.repeat(n);
  return (line) => pad + line;
}
