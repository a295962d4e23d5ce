import type { VNode } from 'preact';
import { html } from '../render.ts';

export type SeriesTone = 'brand' | 'success' | 'danger';

export interface ChartSeries {
  name: string;
  values: readonly number[];
  /** The colour that says what the series means (failures in the danger colour); by default by position. */
  tone?: SeriesTone;
}

const TONE_CLASS: Record<SeriesTone, number> = { brand: 1, success: 2, danger: 3 };
const toneOf = (s: ChartSeries, j: number): number => (s.tone ? TONE_CLASS[s.tone] : j + 1);

export interface BarChartProps {
  id: string;
  title: string;
  /** One sentence summing up what the chart shows, read by screen readers before the data table. */
  description: string;
  labels: readonly string[];
  series: readonly ChartSeries[];
  /** Formats a value for the axis and the table (counts by default). */
  format?: (value: number) => string;
  /** Fixed top of the scale (100 for percentages); default the largest value, rounded up. */
  max?: number;
}

const WIDTH = 640;
const HEIGHT = 200;
const PAD = { top: 14, right: 8, bottom: 36, left: 52 };

function niceMax(values: readonly number[]): number {
  const top = Math.max(1, ...values);
  const step = 10 ** Math.floor(Math.log10(top));
  return Math.ceil(top / step) * step;
}

/**
 * A grouped bar chart drawn on the server as SVG (no script, no inline style), followed by the same
 * numbers as a table: the SVG is labelled and described, and the table is the text alternative,
 * shown to everyone under a disclosure.
 */
export function barChart(p: BarChartProps): VNode {
  const fmt = p.format ?? ((v: number) => String(v));
  const max = p.max ?? niceMax(p.series.flatMap((s) => s.values));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const groupW = plotW / Math.max(1, p.labels.length);
  const barW = Math.max(2, (groupW * 0.8) / Math.max(1, p.series.length));
  const y = (v: number) => PAD.top + plotH - (Math.min(v, max) / max) * plotH;
  // Counts have no halves: the middle line is drawn only where it is a whole value (or a custom format).
  const ticks = p.format || Number.isInteger(max / 2) ? [0, max / 2, max] : [0, max];
  const labelEvery = Math.ceil(p.labels.length / 7);
  return html`<figure class="chart-figure">
    <svg class="chart" viewBox=${`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby=${`${p.id}-title ${p.id}-desc`} focusable="false">
      <title id=${`${p.id}-title`}>${p.title}</title>
      <desc id=${`${p.id}-desc`}>${p.description}</desc>
      ${ticks.map((t) => html`<g><line class="axis" x1=${PAD.left} x2=${WIDTH - PAD.right} y1=${y(t)} y2=${y(t)} /><text x=${PAD.left - 6} y=${y(t) + 7} text-anchor="end">${fmt(t)}</text></g>`)}
      ${p.labels.map((label, i) => {
        const x0 = PAD.left + i * groupW + groupW * 0.1;
        return html`<g>
          ${p.series.map((s, j) => {
            const v = s.values[i] ?? 0;
            return html`<rect class=${`series-${toneOf(s, j)}`} x=${(x0 + j * barW).toFixed(1)} y=${y(v).toFixed(1)} width=${(barW - 1).toFixed(1)} height=${(PAD.top + plotH - y(v)).toFixed(1)} />`;
          })}
          ${i % labelEvery === 0 ? html`<text x=${(x0 + (barW * p.series.length) / 2).toFixed(1)} y=${HEIGHT - 6} text-anchor="middle">${label}</text>` : null}
        </g>`;
      })}
    </svg>
    <ul class="legend" aria-hidden="true">
      ${p.series.map((s, j) => html`<li><span class=${`legend__swatch legend__swatch--${toneOf(s, j)}`}></span>${s.name}</li>`)}
    </ul>
    <details class="details">
      <summary>${p.title}: the numbers</summary>
      <div class="details__body table-wrap">
        <table class="table">
          <caption class="visually-hidden">${p.title}</caption>
          <thead><tr><th scope="col">Day</th>${p.series.map((s) => html`<th scope="col" class="num">${s.name}</th>`)}</tr></thead>
          <tbody>${p.labels.map((label, i) => html`<tr><th scope="row">${label}</th>${p.series.map((s) => html`<td class="num">${fmt(s.values[i] ?? 0)}</td>`)}</tr>`)}</tbody>
        </table>
      </div>
    </details>
  </figure>`;
}
