/**
 * @module
 * Significance of a whale event from its USD size (service spec, "Event filter vocabulary": low, medium, high,
 * critical). Each level starts at its threshold, inclusive; below `low` a transfer is not a whale event at all.
 */

export type Significance = 'low' | 'medium' | 'high' | 'critical'

/** levels from least to most significant; the index is the rank `atLeast` compares */
export const SIGNIFICANCE_LEVELS: readonly Significance[] = ['low', 'medium', 'high', 'critical']

/** lower bound of each level, USD, inclusive; must satisfy 0 <= low <= medium <= high <= critical */
export interface SignificanceThresholds {
  readonly low: number
  readonly medium: number
  readonly high: number
  readonly critical: number
}

/** defaults: $100k is the smallest transfer worth surfacing; each level up is a 5× (then 4×) step */
export const DEFAULT_THRESHOLDS: SignificanceThresholds = {
  low: 100_000,
  medium: 500_000,
  high: 2_500_000,
  critical: 10_000_000
}

/** Throws a RangeError naming the first threshold that is not finite, negative, or below the level under it. */
export function checkThresholds(t: SignificanceThresholds): void {
  let previous = 0
  for (const level of SIGNIFICANCE_LEVELS) {
    const value = t[level]
    if (!Number.isFinite(value) || value < previous) {
      throw new RangeError(`significance threshold ${level} must be a finite number >= ${previous}, got ${value}`)
    }
    previous = value
  }
}

/** The level of a USD size, or null below `low` (and for NaN): such a transfer is not a whale event. */
export function significanceOf(usd: number, t: SignificanceThresholds = DEFAULT_THRESHOLDS): Significance | null {
  if (usd >= t.critical) return 'critical'
  if (usd >= t.high) return 'high'
  if (usd >= t.medium) return 'medium'
  if (usd >= t.low) return 'low'
  return null
}

/** True when `level` is `min` or more significant. */
export function atLeast(level: Significance, min: Significance): boolean {
  return SIGNIFICANCE_LEVELS.indexOf(level) >= SIGNIFICANCE_LEVELS.indexOf(min)
}
