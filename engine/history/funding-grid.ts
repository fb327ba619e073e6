/**
 * @module
 * Dense funding heatmap grids from merged bucket rows (engine/history/funding-queries.ts): every bucket of
 * the window appears; a bucket without readings has null values, never 0 (0 is a real funding rate).
 */
import { findGaps, type Gap } from './envelope.js'
import type { FundingBucketRow } from './funding-queries.js'
import { annualize, toBasis } from './funding-stats.js'
import type { Market } from './markets.js'
import type { TimeRange } from './range.js'
import { bucketStarts, type Span } from './span.js'

/** One market in one bucket. Rates are decimal fractions; null where the bucket has no reading. */
export interface FundingValues {
  /** last reading in the bucket, per the market's funding interval */
  readonly rate: number | null
  /** rate x 8760 / interval_hours, per year */
  readonly rate_annualized: number | null
  /** rate x 8 / interval_hours: the rate on an 8-hour basis */
  readonly rate_8h: number | null
  /** mean of the bucket's readings, per funding interval */
  readonly rate_avg: number | null
  readonly rate_min: number | null
  readonly rate_max: number | null
  /** the market's hours between settlements */
  readonly interval_hours: number | null
  /** readings in the bucket (0 when missing) */
  readonly readings: number
}

export interface FundingCell extends FundingValues {
  /** bucket start, epoch ms */
  readonly timestamp: number
}

export interface ComparativeRow {
  /** bucket start, epoch ms */
  readonly timestamp: number
  /** one entry per requested exchange, in request order */
  readonly exchanges: Readonly<Record<string, FundingValues>>
  /** largest minus smallest rate_8h among exchanges with a reading; null with fewer than two */
  readonly spread_8h: number | null
}

const MISSING: FundingValues = {
  rate: null,
  rate_annualized: null,
  rate_8h: null,
  rate_avg: null,
  rate_min: null,
  rate_max: null,
  interval_hours: null,
  readings: 0
}

export function valuesOf(row: FundingBucketRow | undefined): FundingValues {
  if (!row) return MISSING
  return {
    rate: row.last_rate,
    rate_annualized: annualize(row.last_rate, row.hours),
    rate_8h: toBasis(row.last_rate, row.hours),
    rate_avg: row.mean_rate,
    rate_min: row.low_rate,
    rate_max: row.high_rate,
    interval_hours: row.hours,
    readings: row.readings
  }
}

const keyOf = (exchange: string, symbol: string): string => `${exchange}\u0000${symbol}`

/** Rows of one market by bucket start. */
function byBucket(rows: readonly FundingBucketRow[], market: Market): Map<number, FundingBucketRow> {
  const key = keyOf(market.exchange, market.symbol)
  return new Map(rows.filter((r) => keyOf(r.exchange, r.symbol) === key).map((r) => [r.t_ms, r]))
}

/** One market's dense grid over `window`, and its gaps. */
export function heatmapGrid(
  rows: readonly FundingBucketRow[],
  market: Market,
  window: TimeRange,
  span: Span
): { cells: FundingCell[]; gaps: Gap[] } {
  const have = byBucket(rows, market)
  const cells = bucketStarts(window.fromMs, window.toMs, span).map((t) => ({ timestamp: t, ...valuesOf(have.get(t)) }))
  return { cells, gaps: findGaps(have.keys(), window.fromMs, window.toMs, span) }
}

export interface ComparativeGrid {
  readonly rows: ComparativeRow[]
  /** buckets where no market has a reading */
  readonly gaps: Gap[]
  /** each market's own gaps, in `markets` order */
  readonly marketGaps: Gap[][]
}

/** Exchanges x buckets over `window`: one row per bucket, one entry per market (one market per exchange). */
export function comparativeGrid(
  rows: readonly FundingBucketRow[],
  markets: readonly Market[],
  window: TimeRange,
  span: Span
): ComparativeGrid {
  const have = markets.map((m) => byBucket(rows, m))
  const out = bucketStarts(window.fromMs, window.toMs, span).map((t) => {
    const exchanges: Record<string, FundingValues> = {}
    const basis: number[] = []
    markets.forEach((m, i) => {
      const v = valuesOf(have[i]!.get(t))
      exchanges[m.exchange] = v
      if (v.rate_8h !== null) basis.push(v.rate_8h)
    })
    const spread = basis.length >= 2 ? Math.max(...basis) - Math.min(...basis) : null
    return { timestamp: t, exchanges, spread_8h: spread }
  })
  const any = new Set(have.flatMap((h) => [...h.keys()]))
  return {
    rows: out,
    gaps: findGaps(any, window.fromMs, window.toMs, span),
    marketGaps: have.map((h) => findGaps(h.keys(), window.fromMs, window.toMs, span))
  }
}
