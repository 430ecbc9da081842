/**
 * The item page's price history (issue 15 point 5): daily closes of the anonymous window and hourly closes
 * of the last finished hours, as SVG charts, HTML tables and Markdown tables with the same numbers. Pure.
 */
import { DAY_MS, dayOf, HOUR_MS, hourOf } from '../clock';
import { ROLE_LIMITS } from '../domain/roles';
import { firstWindowDay } from '../market/view-rules';
import { formatCopper } from './money';
import { type ChartPoint, type ChartTick, priceChartSvg } from './price-chart';
import { escapeHtml } from './render';

/** `[t, close, quantity]` of one finished hour (`t` = the hour's start, Unix ms), oldest first. */
export type HourClose = [t: number, close: number, quantity: number];

/** How many finished hours the hourly chart shows. */
export const CHART_HOURS = 48;

/** Hours `first..last` (hour numbers) the hourly chart covers at `now`: the last CHART_HOURS finished hours. */
export function chartHours(now: number): { first: number; last: number } {
  const last = hourOf(now) - 1;
  return { first: last - CHART_HOURS + 1, last };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const shortDay = (ms: number): string => {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
};
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const isoHour = (ms: number): string => `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}:00`;

/** The closes a chart and its tables show. */
export interface PriceHistory {
  /** Day points `[day, low, last, quantity]` of the window, oldest first (the page's `days`). */
  days: ReadonlyArray<readonly [day: number, low: number, last: number, quantity: number]>;
  hours: readonly HourClose[];
  now: number;
}

function summary(points: readonly ChartPoint[]): string {
  const prices = points.map((p) => p.price);
  return `lowest ${formatCopper(Math.min(...prices))}, highest ${formatCopper(Math.max(...prices))}, latest ${formatCopper(prices[prices.length - 1])}`;
}

/** The daily chart: each day's close (the current day so far) over the anonymous window of days. */
export function dailyChart(h: PriceHistory, name: string): string {
  const first = firstWindowDay(h.now, ROLE_LIMITS.anon.historyDays);
  const today = dayOf(h.now);
  const points = h.days.map(([day, , last]) => ({ t: day * DAY_MS, price: last }));
  const xTicks: ChartTick[] = [];
  // Every other day is minor, counted from today so today's label always shows.
  for (let d = first; d <= today; d++) xTicks.push({ t: d * DAY_MS, label: shortDay(d * DAY_MS), minor: (today - d) % 2 === 1 });
  const span = `${isoDay(first * DAY_MS)} to ${isoDay(today * DAY_MS)} (UTC, the last day so far)`;
  return priceChartSvg({
    id: 'chart-daily',
    label: `Daily closing price of ${name}, ${today - first + 1} days`,
    description: points.length
      ? `Daily closing prices per unit from ${span}: ${points.length} days with a price; ${summary(points)}.`
      : `No observed price from ${span}.`,
    points,
    from: first * DAY_MS,
    to: today * DAY_MS,
    xTicks,
    empty: `No observed price is available in the last ${today - first + 1} days.`,
  });
}

/** The hourly chart: each finished hour's close over the last CHART_HOURS hours; ticks every 6 hours (minor but at 00:00 and 12:00), days named at midnight. */
export function hourlyChart(h: PriceHistory, name: string): string {
  const { first, last } = chartHours(h.now);
  const points = h.hours.map(([t, close]) => ({ t, price: close }));
  const xTicks: ChartTick[] = [];
  for (let hour = Math.ceil(first / 6) * 6; hour <= last; hour += 6) {
    const t = hour * HOUR_MS;
    xTicks.push({ t, label: hour % 24 === 0 ? shortDay(t) : `${String(hour % 24).padStart(2, '0')}:00`, minor: hour % 12 !== 0 });
  }
  const span = `${isoHour(first * HOUR_MS)} to ${isoHour(last * HOUR_MS)} UTC`;
  return priceChartSvg({
    id: 'chart-hourly',
    label: `Hourly closing price of ${name}, last ${CHART_HOURS} hours`,
    description: points.length
      ? `Closing prices per unit of the hours from ${span}: ${points.length} hours with a price; ${summary(points)}.`
      : `No observed price in the hours from ${span}.`,
    points,
    from: first * HOUR_MS,
    to: last * HOUR_MS,
    xTicks,
    empty: `No observed price is available in the last ${CHART_HOURS} hours.`,
  });
}

const table = (caption: string, head: readonly string[], rows: ReadonlyArray<readonly string[]>): string =>
  [
    '<table>',
    `<caption>${escapeHtml(caption)}</caption>`,
    `<thead><tr>${head.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('')}</tr></thead>`,
    '<tbody>',
    ...rows.map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td>${escapeHtml(c)}</td>`)).join('')}</tr>`),
    '</tbody>',
    '</table>',
  ].join('\n');

const dayRows = (h: PriceHistory): string[][] =>
  [...h.days].reverse().map(([day, low, last, q]) => [isoDay(day * DAY_MS), formatCopper(low), formatCopper(last), q.toLocaleString('en-US')]);
const hourRows = (h: PriceHistory): string[][] => [...h.hours].reverse().map(([t, close, q]) => [isoHour(t), formatCopper(close), q.toLocaleString('en-US')]);

/** The daily table (newest first): the charts' numbers for anyone who cannot see them. */
export function dailyTableHtml(h: PriceHistory): string {
  return h.days.length
    ? table('Daily prices per unit (UTC days, newest first)', ['Day (UTC)', 'Low', 'Last', 'Quantity'], dayRows(h))
    : '<p>No daily prices in the last days.</p>';
}

/** The hourly table (newest first). */
export function hourlyTableHtml(h: PriceHistory): string {
  return h.hours.length
    ? table('Hourly closes per unit (UTC hours, newest first)', ['Hour (UTC)', 'Close', 'Quantity'], hourRows(h))
    : `<p>No hourly prices in the last ${CHART_HOURS} hours.</p>`;
}

/** Both tables in Markdown, under their own headings. */
export function priceHistoryMarkdown(h: PriceHistory): string[] {
  const lines = ['## Recent days', ''];
  if (h.days.length) lines.push('| Day (UTC) | Low | Last | Quantity |', '|---|---|---|---|', ...dayRows(h).map((r) => `| ${r.join(' | ')} |`));
  else lines.push('No daily prices in the last days.');
  lines.push('', `## Hourly closes (last ${CHART_HOURS} hours)`, '');
  if (h.hours.length) lines.push('| Hour (UTC) | Close | Quantity |', '|---|---|---|', ...hourRows(h).map((r) => `| ${r.join(' | ')} |`));
  else lines.push(`No hourly prices in the last ${CHART_HOURS} hours.`);
  return lines;
}
