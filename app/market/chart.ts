/**
 * The interactive price chart (issue 24 point 4): candles and volume drawn by `lightweight-charts`. This
 * module is only ever loaded by `import()` where a chart is shown, so the library stays out of the app's
 * initial chunk (the 100 KB budget, issue 24 point 9). Colours come from the page's stylesheet variables, so
 * the chart follows the light and dark schemes.
 */
import { CandlestickSeries, ColorType, createChart, HistogramSeries, type IChartApi, type UTCTimestamp } from 'lightweight-charts';
import { copperLabel } from '../../shared/pages/money';
import type { ChartSeries } from './chart-data';

export interface DrawnChart {
  /** Replaces the drawn series. */
  update(series: ChartSeries): void;
  remove(): void;
}

const cssVar = (name: string, fallback: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/** Draws the series in `container` (sized by the stylesheet; the chart follows its size). */
/** The chart's colours from the stylesheet as it is now (light or dark). */
function theme() {
  const line = cssVar('--line', '#d1d9e0');
  return {
    up: cssVar('--up', '#1a7f37'),
    down: cssVar('--down', '#cf222e'),
    chart: {
      layout: { background: { type: ColorType.Solid, color: cssVar('--card', '#ffffff') }, textColor: cssVar('--muted', '#59636e') },
      grid: { vertLines: { color: line }, horzLines: { color: line } },
      timeScale: { borderColor: line },
      rightPriceScale: { borderColor: line },
    },
  };
}

const candleColours = (up: string, down: string) => ({
  upColor: up,
  downColor: down,
  borderUpColor: up,
  borderDownColor: down,
  wickUpColor: up,
  wickDownColor: down,
});

/** Draws the series in `container` (sized by the stylesheet; the chart follows its size and the colour scheme). */
export function drawChart(container: HTMLElement, series: ChartSeries, opts: { timeVisible: boolean }): DrawnChart {
  let colours = theme();
  const chart: IChartApi = createChart(container, {
    autoSize: true,
    ...colours.chart,
    layout: {
      ...colours.chart.layout,
      fontFamily: getComputedStyle(document.body).fontFamily,
      // The credit is a visible text link under the chart (app/routes/market-item.ts), which has a name.
      attributionLogo: false,
    },
    timeScale: { ...colours.chart.timeScale, timeVisible: opts.timeVisible, secondsVisible: false },
  });
  const candles = chart.addSeries(CandlestickSeries, {
    ...candleColours(colours.up, colours.down),
    priceFormat: { type: 'custom', minMove: 1, formatter: (p: number) => copperLabel(Math.max(0, Math.round(p))) },
  });
  const volume = chart.addSeries(HistogramSeries, {
    priceScaleId: 'volume',
    priceFormat: { type: 'volume' },
    lastValueVisible: false,
    priceLineVisible: false,
  });
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  candles.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.25 } });
  let shown = series;
  const set = (s: ChartSeries) => {
    shown = s;
    candles.setData(s.candles.map((c) => ({ ...c, time: c.time as UTCTimestamp })));
    volume.setData(s.volume.map((v) => ({ time: v.time as UTCTimestamp, value: v.value, color: v.up ? `${colours.up}66` : `${colours.down}66` })));
    chart.timeScale().fitContent();
  };
  // The scheme can change while the page is open (the system's dark mode at dusk): the canvas is repainted in it.
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  const repaint = () => {
    colours = theme();
    chart.applyOptions(colours.chart);
    candles.applyOptions(candleColours(colours.up, colours.down));
    set(shown);
  };
  scheme.addEventListener('change', repaint);
  set(series);
  return {
    update: set,
    remove: () => {
      scheme.removeEventListener('change', repaint);
      chart.remove();
    },
  };
}
