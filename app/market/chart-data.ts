/**
 * Candles of the API (`[t, open, high, low, close, quantity]`, `t` in Unix ms: spec api.md Conventions) as the
 * chart library's series: candles in copper and a volume histogram of the quantity listed, times in UTC
 * seconds, strictly ascending (the library refuses anything else). Pure, so it is tested without a canvas.
 */

export type ApiCandle = readonly [t: number, open: number, high: number, low: number, close: number, quantity: number];

export interface CandlePoint {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

export interface VolumePoint {
  time: number;
  value: number;
  /** Up (close >= open) or down, so the bars read with their candles. */
  up: boolean;
}

export interface ChartSeries {
  candles: CandlePoint[];
  volume: VolumePoint[];
}

/** The series of a candles answer: sorted by time, one point per second (a later duplicate wins). */
export function toSeries(candles: readonly ApiCandle[]): ChartSeries {
  const byTime = new Map<number, ApiCandle>();
  for (const c of candles) byTime.set(Math.floor(c[0] / 1000), c);
  const times = [...byTime.keys()].sort((a, b) => a - b);
  return {
    candles: times.map((time) => {
      const [, open, high, low, close] = byTime.get(time) as ApiCandle;
      return { time, open, high, low, close };
    }),
    volume: times.map((time) => {
      const [, open, , , close, quantity] = byTime.get(time) as ApiCandle;
      return { time, value: quantity, up: close >= open };
    }),
  };
}

/** A sentence describing the chart for people who cannot see it (the canvas's accessible name). */
export function describeSeries(series: ChartSeries, label: string): string {
  const n = series.candles.length;
  if (n === 0) return `${label} price chart: no candles yet.`;
  const first = series.candles[0];
  const last = series.candles[n - 1];
  const lows = Math.min(...series.candles.map((c) => c.low));
  const highs = Math.max(...series.candles.map((c) => c.high));
  const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ');
  return `${label} price chart: ${n} candle${n === 1 ? '' : 's'} from ${day(first.time)} to ${day(last.time)} UTC, low ${lows}c, high ${highs}c, last close ${last.close}c.`;
}
