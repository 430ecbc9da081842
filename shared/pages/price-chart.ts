/**
 * A server-rendered SVG line chart of prices over time: gridlines, price axis in gold/silver/copper, time
 * axis, the line with an area under it and a dot per point. Inline in the page, so it needs no script; it is
 * an image to assistive technology (`role="img"`, `aria-label`, `<title>` and `<desc>`). Pure.
 */
import { copperLabel } from './money';
import { escapeHtml } from './render';

export interface ChartPoint {
  /** Unix ms. */
  t: number;
  /** Copper per unit. */
  price: number;
}

export interface ChartTick {
  t: number;
  label: string;
  /** A label the stylesheet may hide where the chart is drawn small (its gridline stays). */
  minor?: boolean;
}

export interface PriceChartSpec {
  /** Unique within the page: ids of the `<title>` and `<desc>` derive from it. */
  id: string;
  /** The accessible name (also the `<title>`). */
  label: string;
  /** What the chart shows in words (the `<desc>`). */
  description: string;
  points: readonly ChartPoint[];
  /** The time axis spans `from..to` (Unix ms) whatever the points cover, so gaps show as gaps. */
  from: number;
  to: number;
  xTicks: readonly ChartTick[];
  /** Said instead of the chart when there is no point. */
  empty: string;
}

// Sized for half of a wide page; the stylesheet enlarges the labels where the chart is drawn smaller.
const WIDTH = 480;
const HEIGHT = 240;
const TOP = 14;
const RIGHT = 24;
const BOTTOM = 32;
/** Roughly the width of one character of an axis label at its largest (17px); the price axis fits its longest label. */
const CHAR_PX = 9;

/** A 1-2-5 step (in copper, so also whole silver and gold) that cuts `span` into about `count` parts. */
export function niceStep(span: number, count: number): number {
  const raw = Math.max(span / count, 1);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) as number;
  return Math.max(1, Math.round(step));
}

/** Price ticks covering `low..high`: multiples of a nice step, never below zero, at least two. */
export function priceTicks(low: number, high: number, count = 4): number[] {
  // A flat series still gets a band around it, so the line sits mid-chart instead of on an edge.
  const pad = high > low ? 0 : Math.max(1, Math.round(low * 0.1));
  const lo = Math.max(0, low - pad);
  const hi = high + pad;
  const step = niceStep(hi - lo, count);
  const first = Math.floor(lo / step) * step;
  const last = Math.max(Math.ceil(hi / step) * step, first + step);
  const ticks: number[] = [];
  for (let v = first; v <= last; v += step) ticks.push(v);
  return ticks;
}

const num = (v: number): string => (Math.round(v * 10) / 10).toString();

/** The chart as an inline `<svg>`, or a paragraph saying `empty` when there is nothing to draw. */
export function priceChartSvg(spec: PriceChartSpec): string {
  const points = [...spec.points].filter((p) => p.t >= spec.from && p.t <= spec.to).sort((a, b) => a.t - b.t);
  if (points.length === 0) return `<p class="chart-empty">${escapeHtml(spec.empty)}</p>`;
  const prices = points.map((p) => p.price);
  const ticks = priceTicks(Math.min(...prices), Math.max(...prices));
  const yMin = ticks[0];
  const yMax = ticks[ticks.length - 1];
  const labels = ticks.map(copperLabel);
  const left = 14 + CHAR_PX * Math.max(...labels.map((l) => l.length));
  const plotW = WIDTH - left - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const x = (t: number): number => left + ((t - spec.from) / Math.max(1, spec.to - spec.from)) * plotW;
  const y = (price: number): number => TOP + plotH - ((price - yMin) / (yMax - yMin)) * plotH;
  const bottom = TOP + plotH;

  const grid = [
    ...ticks.map((v) => `<line x1="${left}" x2="${WIDTH - RIGHT}" y1="${num(y(v))}" y2="${num(y(v))}"/>`),
    ...spec.xTicks.filter((k) => k.t >= spec.from && k.t <= spec.to).map((k) => `<line x1="${num(x(k.t))}" x2="${num(x(k.t))}" y1="${TOP}" y2="${bottom}"/>`),
  ];
  const yLabels = ticks.map((v, i) => `<text x="${left - 8}" y="${num(y(v))}" text-anchor="end" dominant-baseline="middle">${escapeHtml(labels[i])}</text>`);
  const xLabels = spec.xTicks
    .filter((k) => k.t >= spec.from && k.t <= spec.to && k.label !== '')
    .map((k) => `<text${k.minor ? ' class="minor"' : ''} x="${num(x(k.t))}" y="${HEIGHT - 8}" text-anchor="middle">${escapeHtml(k.label)}</text>`);
  const coords = points.map((p) => `${num(x(p.t))},${num(y(p.price))}`);
  const area = `M${num(x(points[0].t))},${bottom} L${coords.join(' L')} L${num(x(points[points.length - 1].t))},${bottom} Z`;
  const titleId = `${spec.id}-title`;
  const descId = `${spec.id}-desc`;
  return [
    `<svg class="chart" id="${escapeHtml(spec.id)}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(spec.label)}" aria-describedby="${escapeHtml(descId)}">`,
    `<title id="${escapeHtml(titleId)}">${escapeHtml(spec.label)}</title>`,
    `<desc id="${escapeHtml(descId)}">${escapeHtml(spec.description)}</desc>`,
    `<g class="grid" stroke="#d1d9e0" stroke-width="1">${grid.join('')}</g>`,
    `<line class="axis" x1="${left}" x2="${WIDTH - RIGHT}" y1="${bottom}" y2="${bottom}" stroke="#8c959f"/>`,
    `<g class="labels" fill="#59636e" font-size="13" font-family="system-ui, sans-serif">${yLabels.join('')}${xLabels.join('')}</g>`,
    `<path class="area" d="${area}" fill="#1f6feb" fill-opacity="0.12"/>`,
    `<polyline class="line" points="${coords.join(' ')}" fill="none" stroke="#1f6feb" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>`,
    `<g class="dots" fill="#1f6feb">${coords.map((c) => `<circle cx="${c.split(',')[0]}" cy="${c.split(',')[1]}" r="${points.length > 40 ? 2 : 3}"/>`).join('')}</g>`,
    '</svg>',
  ].join('\n');
}
