/**
 * Saturating arithmetic for derived sums (docs/failure-model.md: Saturation). Inputs are in the spec's ranges
 * (prices 0..2^53-1, stack and n 1..2^31-1), but a sum or product of them (n × stack summed over a book) can
 * pass 2^53-1, where doubles stop being exact: such a figure is held at 2^53-1 instead of throwing or wrapping.
 */

/** The ceiling of every derived sum: Number.MAX_SAFE_INTEGER (2^53-1). */
export const SATURATED = Number.MAX_SAFE_INTEGER;

/**
 * a + b for non-negative safe integers, held at 2^53-1. Exact below the ceiling: a true sum up to 2^53-1 is
 * computed exactly, and a larger one rounds to at least 2^53, never below it.
 */
export const satAdd = (a: number, b: number): number => Math.min(a + b, SATURATED);

/** a × b for non-negative safe integers, held at 2^53-1 (exact below the ceiling, as `satAdd`). */
export const satMul = (a: number, b: number): number => Math.min(a * b, SATURATED);
