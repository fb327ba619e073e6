/**
 * @module
 * Percentile rank of a value against a sample (here: the current funding rate against the symbol's own
 * 30-day funding history). Mid-rank definition: values below count fully, ties count half, so a value equal
 * to every sample sits at 50 and the rank is non-decreasing in the value.
 */

import { finite } from './math.js'

/**
 * Percent of `history` below `value`, ties counted half: 100 × (below + equal / 2) / n, in [0, 100].
 * Non-finite history entries are ignored. Null when the value is not finite or no usable history remains.
 */
export function percentileRank(value: number, history: readonly number[]): number | null {
  if (finite(value) === null) return null
  let n = 0
  let below = 0
  let equal = 0
  for (const h of history) {
    if (finite(h) === null) continue
    n++
    if (h < value) below++
    else if (h === value) equal++
  }
  return n === 0 ? null : (100 * (below + equal / 2)) / n
}
