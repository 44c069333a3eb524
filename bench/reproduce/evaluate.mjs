// How a paper's result is computed from the benchmarks' rows and judged against the paper: the value
// expressions of bench/reproduce/papers/*.json, the claimed direction, and the magnitude verdict.

/** A magnitude the model claims is reproduced when dapl.ts's figure is within this fraction of the paper's. */
export const MAGNITUDE_TOLERANCE = 0.15;

/** The papers, in the order `all` runs them. */
export const PAPERS = ['mpi-lapi', 'fmpl', 'mpich-mplite', 'mpi2-rma-lapi', 'mvapich2-udapl'];

/** The benchmarks an expression reads (selectors name one with `bench`). */
export function benchesOf(expr, into = new Set()) {
  if (expr === null || expr === undefined || typeof expr !== 'object') return into;
  if (typeof expr.bench === 'string') into.add(expr.bench);
  for (const part of expr.of ?? []) benchesOf(part, into);
  return into;
}

class NotMeasured extends Error {}

/**
 * The value of an expression over `rows` (benchmark id → record rows): a number, or for a `sizeFrom`
 * selector an array of { size, value } sorted by size. Throws NotMeasured when a row is missing.
 */
function value(expr, rows) {
  if (typeof expr === 'number') return expr;
  if (expr.op === undefined) return select(expr, rows);
  const args = (expr.of ?? []).map((e) => value(e, rows));
  switch (expr.op) {
    case 'ratio':
      return pairwise(args, (a, b) => a / b);
    case 'difference':
      return pairwise(args, (a, b) => a - b);
    case 'gainPercent': // a over b, as a percentage gain (a/b - 1)
      return pairwise(args, (a, b) => (a / b - 1) * 100);
    case 'reductionPercent': // a below b, as a percentage of b
      return pairwise(args, (a, b) => ((b - a) / b) * 100);
    case 'rateGainPercent': // rates a and b: the time saved by a, as a percentage of b's time
      return pairwise(args, (a, b) => (1 - b / a) * 100);
    case 'throughput': // a one-way time in µs of `size` bytes, as MB/s
      return pairwise([args[0], args[0]], (us) => expr.size / us);
    case 'max':
      return Math.max(...flat(args));
    case 'min':
      return Math.min(...flat(args));
    case 'median':
      return median(flat(args));
    default:
      throw new Error(`unknown op '${expr.op}'`);
  }
}

function select(sel, rows) {
  const list = rows.get(sel.bench);
  if (list === undefined) throw new NotMeasured(`benchmark ${sel.bench} did not run`);
  const matches = list.filter((r) => r.test === sel.test && r.series === sel.series && (sel.provider === undefined || r.provider === sel.provider));
  if (sel.sizeFrom !== undefined) {
    const from = matches.filter((r) => r.size !== null && r.size >= sel.sizeFrom).sort((a, b) => a.size - b.size);
    if (from.length === 0) throw new NotMeasured(`${sel.bench}: no "${sel.test}" / "${sel.series}" rows from ${sel.sizeFrom} B`);
    return from.map((r) => ({ size: r.size, value: r.value }));
  }
  const row = matches.find((r) => (r.size ?? null) === (sel.size ?? null));
  if (row === undefined) throw new NotMeasured(`${sel.bench}: no "${sel.test}" / "${sel.series}" row at size ${sel.size ?? '-'}`);
  return row.value;
}

/** `f` of two numbers, or element by element (matched by size) where either is a curve. */
function pairwise([a, b], f) {
  if (!Array.isArray(a) && !Array.isArray(b)) return f(a, b);
  const curve = Array.isArray(a) ? a : b;
  return curve.map(({ size }) => {
    const at = (x) => (Array.isArray(x) ? x.find((p) => p.size === size)?.value : x);
    return { size, value: f(at(a), at(b)) };
  }).filter((p) => Number.isFinite(p.value));
}

function flat(args) {
  return args.flatMap((a) => (Array.isArray(a) ? a.map((p) => p.value) : [a]));
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Whether `left relation right` holds; ≈ within `tolerance` (relative to right, or absolute). */
function holds(left, { relation, tolerance = 0.05, absolute = false }, right) {
  switch (relation) {
    case '<':
      return left < right;
    case '>':
      return left > right;
    case '<=':
      return left <= right;
    case '>=':
      return left >= right;
    case '≈':
      return Math.abs(left - right) <= (absolute || right === 0 ? tolerance : tolerance * Math.abs(right));
    default:
      throw new Error(`unknown relation '${relation}'`);
  }
}

/** A number, or undefined where the expression has nothing to compute from. */
function scalar(expr, rows) {
  const v = value(expr, rows);
  if (Array.isArray(v)) throw new Error('a curve where a number is needed: reduce it with max, min or median');
  return v;
}

/**
 * One result judged: dapl.ts's figure, its ratio to the paper's, whether the claimed direction holds
 * (null where the paper claims none or nothing was measured) and whether the magnitude is within
 * MAGNITUDE_TOLERANCE (null where none is claimed or nothing was measured).
 */
export function judge(paper, result, rows, failures) {
  const out = {
    paper,
    result: result.id,
    title: result.title,
    paperValue: result.paperValue ?? null,
    daplValue: null,
    unit: result.unit,
    ratio: null,
    directionHolds: null,
    directionClaimed: result.claim !== undefined,
    claim: result.claim?.text ?? null,
    magnitudeClaimed: result.magnitudeClaimed === true,
    magnitudeWithin: null,
    source: result.source,
    note: null,
  };
  if (result.dapl === null || result.dapl === undefined) {
    out.note = `not measured: ${result.notMeasured ?? 'no benchmark'}`;
    return out;
  }
  try {
    out.daplValue = scalar(result.dapl, rows);
    if (out.paperValue !== null && out.paperValue !== 0) out.ratio = out.daplValue / out.paperValue;
    if (result.claim !== undefined) {
      const right = result.claim.right === undefined ? 0 : scalar(result.claim.right, rows);
      out.directionHolds = holds(out.daplValue, result.claim, right);
    }
    if (out.magnitudeClaimed && out.ratio !== null) out.magnitudeWithin = Math.abs(out.ratio - 1) <= MAGNITUDE_TOLERANCE;
    // A miss says which mechanism the model lacks and that no documented figure for it was found.
    if ((out.directionHolds === false || out.magnitudeWithin === false) && result.ifMissed !== undefined) out.note = `missed: ${result.ifMissed}`;
  } catch (error) {
    if (!(error instanceof NotMeasured)) throw error;
    const failed = [...benchesOf(result.dapl), ...benchesOf(result.claim?.right)].map((b) => failures.get(b)).find((f) => f !== undefined);
    out.daplValue = null;
    out.ratio = null;
    out.directionHolds = null;
    out.note = `not measured: ${failed ?? error.message}`;
  }
  return out;
}

/** One line of counts: directions held of claimed, magnitudes within 15 % of claimed, not measured. */
export function summarise(judged) {
  const directions = judged.filter((j) => j.directionClaimed);
  const magnitudes = judged.filter((j) => j.magnitudeClaimed);
  return {
    results: judged.length,
    directionsClaimed: directions.length,
    directionsHeld: directions.filter((j) => j.directionHolds === true).length,
    magnitudesClaimed: magnitudes.length,
    magnitudesWithin: magnitudes.filter((j) => j.magnitudeWithin === true).length,
    notMeasured: judged.filter((j) => j.daplValue === null).length,
  };
}
