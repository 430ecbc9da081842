/**
 * Every metric the functions emit (EMF, namespace `MarketData`, dimension `service` = the function; those
 * marked `market` carry the market too: at most 6 values). Counts unless the name says `_ms`.
 */
export const METRIC_NAMESPACE = 'MarketData';

export const METRIC = {
  /** merge: wall time of one book's merge (market). */
  mergeDurationMs: 'merge_duration_ms',
  /** merge: page rows the merge changed (market). */
  mergeRowsChanged: 'merge_rows_changed',
  /** merge: complete books that marked more than half of the market's listed keys gone (no market dimension: alarmed). */
  mergeBlankedMarket: 'merge_blanked_market',
  /** merge: credited books whose prices are the last hourly snapshot's (no market dimension: alarmed). */
  mergeSnapshotReplay: 'merge_snapshot_replay',
  /** any function: DynamoDB write capacity units the market pages consumed. */
  writeUnits: 'write_units',
  /** fanout: `@connections` posts made, and those that found the socket gone. */
  fanoutPosts: 'fanout_posts',
  fanoutGone: 'fanout_gone',
  /** fanout: wall time of one stream batch. */
  fanoutDurationMs: 'fanout_duration_ms',
  /** upload: uploads accepted, and refused (dimension `code`: the spec's error code). */
  uploadsAccepted: 'uploads_accepted',
  uploadsRefused: 'uploads_refused',
  /** push: notifications sent, and failed. */
  pushSent: 'push_sent',
  pushFailed: 'push_failed',
  /** api, upload, pages: answers by status class. */
  answers2xx: 'answers_2xx',
  answers3xx: 'answers_3xx',
  answers4xx: 'answers_4xx',
  answers5xx: 'answers_5xx',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** The answers metric of a status. */
export function answersMetric(status: number): MetricName {
  if (status >= 500) return METRIC.answers5xx;
  if (status >= 400) return METRIC.answers4xx;
  if (status >= 300) return METRIC.answers3xx;
  return METRIC.answers2xx;
}
