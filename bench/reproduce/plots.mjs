// `--plot DIR`: per paper, dapl.ts's figure over the paper's for each result with a positive ratio (a
// band at ±15 %), and each measured curve (a test with several sizes) as the paper draws it: one line
// per configuration (benchmark and series) against message size on log axes. Drawn with vega-lite,
// as bench/report.mjs draws docs/plots.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSvg } from '../lib/report-plots.mjs';
import { MAGNITUDE_TOLERANCE } from './evaluate.mjs';

/** Writes the paper's SVG files into `dir`; returns their paths. */
export async function writePlots(dir, paper, judged, rowsByBench) {
  mkdirSync(dir, { recursive: true });
  const written = [];
  const save = async (name, spec) => {
    const path = join(dir, `${name}.svg`);
    writeFileSync(path, await renderSvg(spec));
    written.push(path);
  };
  const ratios = judged.filter((j) => j.ratio !== null && j.ratio > 0).map((j) => ({ result: j.result, ratio: j.ratio, claimed: j.magnitudeClaimed ? 'magnitude claimed' : 'shown only' }));
  if (ratios.length > 0) {
    await save(`${paper}-ratios`, {
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      title: `${paper}: dapl.ts / paper (band: within ${MAGNITUDE_TOLERANCE * 100} %)`,
      width: 480,
      height: { step: 18 },
      layer: [
        { data: { values: [{ lo: 1 - MAGNITUDE_TOLERANCE, hi: 1 + MAGNITUDE_TOLERANCE }] }, mark: { type: 'rect', opacity: 0.15 }, encoding: { x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
        {
          data: { values: ratios },
          mark: 'bar',
          encoding: {
            y: { field: 'result', type: 'nominal', sort: null, title: null },
            x: { field: 'ratio', type: 'quantitative', scale: { type: 'log' }, title: 'dapl.ts / paper (log)' },
            color: { field: 'claimed', type: 'nominal', title: null },
          },
        },
      ],
    });
  }
  // One figure per test, every benchmark's series on it, as the paper sets configurations side by side.
  const byTest = new Map();
  const several = rowsByBench.size > 1;
  for (const [bench, rows] of rowsByBench) {
    for (const r of rows) {
      if (r.size === null || r.size <= 0 || r.unit === 'ratio' || /paper/.test(r.series)) continue;
      const key = `${r.test} (${r.unit})`;
      (byTest.get(key) ?? byTest.set(key, []).get(key)).push({ size: r.size, value: r.value, unit: r.unit, series: several ? `${bench}: ${r.series}` : r.series });
    }
  }
  for (const [test, points] of byTest) {
    if (new Set(points.map((p) => p.size)).size < 3) continue;
    await save(`${paper}-${test.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '').toLowerCase()}`, {
      $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
      title: `${paper}: ${test}`,
      width: 480,
      height: 300,
      data: { values: points },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'size', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'message size (bytes)' },
        y: { field: 'value', type: 'quantitative', scale: { type: 'log' }, title: points[0].unit },
        color: { field: 'series', type: 'nominal' },
      },
    });
  }
  return written;
}
