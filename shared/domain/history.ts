/** The compacted day history of a market's keys: the shape the packed page format encodes and the market port stores. */
import type { CandlePage } from './candles';
import type { VolumePage } from './volume-estimate';

/** A day of a compacted history page: the day candles (day points) and the volume estimates of that day. */
export interface HistoryDay {
  candles: CandlePage;
  volume: VolumePage;
}

/** Compacted day history of one key shard: day number → that day's pages. */
export type HistoryPage = Map<number, HistoryDay>;
