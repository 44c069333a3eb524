// The plots of docs/plots/: each figure against message size, one curve per provider and series,
// as vega-lite specifications rendered to SVG in Node (vega's headless view; no browser).
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';
import { plotName, plottedTests } from './report-pages.mjs';

/**
 * One plot per (benchmark, test) with at least three sizes, across every record of that benchmark
 * (one curve per provider and series; ratio series are tables only).
 */
export function plotSpecs(records) {
  const groups = new Map();
  for (const record of records) {
    for (const test of plottedTests(record)) {
      const name = plotName(record.benchmark, test);
      const group = groups.get(name) ?? { name, benchmark: record.benchmark, test, rows: [], virtual: true, dates: new Set() };
      group.rows.push(...record.rows.filter((r) => r.test === test && typeof r.size === 'number' && r.unit !== 'ratio'));
      group.virtual &&= record.timeBase === 'virtual';
      group.dates.add(record.date.slice(0, 10));
      groups.set(name, group);
    }
  }
  return [...groups.values()].map((g) => {
    const unit = g.rows[0].unit;
    return {
      name: g.name,
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: `${g.benchmark}: ${g.test} (${g.virtual ? 'virtual time' : 'wall clock'}, ${[...g.dates].sort().join(', ')})`,
        width: 480,
        height: 280,
        data: { values: g.rows.map((r) => ({ size: r.size, value: r.value, curve: `${r.provider} · ${r.series}`, provider: r.provider, series: r.series })) },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'size', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'message size (bytes)' },
          y: { field: 'value', type: 'quantitative', scale: { type: unit === 'us' ? 'log' : 'linear' }, title: unit },
          color: { field: 'provider', type: 'nominal', title: 'provider' },
          strokeDash: { field: 'series', type: 'nominal', title: 'series' },
          detail: { field: 'curve', type: 'nominal' },
        },
      },
    };
  });
}

export async function renderSvg(spec) {
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}
