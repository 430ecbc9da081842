/**
 * Lambda event filter patterns, as the event source mapping evaluates the subset this service uses (exact
 * strings and prefixes, every field matching): the local stream poller drops what they drop, and the change
 * stream's decoder (shared/store/change-stream.ts, where the table stream's filters are defined) tells its
 * records apart with the same patterns.
 */
/** One value rule of a pattern: an exact string or a prefix; a list matches when any element does. */
export type ValueRule = string | { prefix: string };
/** A Lambda filter pattern: nested objects down to lists of value rules. */
export interface FilterPattern {
  [field: string]: FilterPattern | readonly ValueRule[];
}

const matchesRule = (value: unknown, rules: readonly ValueRule[]): boolean =>
  typeof value === 'string' && rules.some((r) => (typeof r === 'string' ? value === r : value.startsWith(r.prefix)));

/** Whether an event matches a pattern, as Lambda evaluates the subset used here (every field must match). */
export function matchesPattern(event: unknown, pattern: FilterPattern): boolean {
  if (typeof event !== 'object' || event === null) return false;
  const e = event as Record<string, unknown>;
  return Object.entries(pattern).every(([field, rule]) =>
    Array.isArray(rule) ? matchesRule(e[field], rule as readonly ValueRule[]) : matchesPattern(e[field], rule as FilterPattern),
  );
}

/** Whether a record passes any of the filters (Lambda delivers it) or none (Lambda drops it). */
export const passesFilters = (record: unknown, filters: readonly FilterPattern[]): boolean => filters.some((f) => matchesPattern(record, f));
