/**
 * @module
 * The bucket grid of the derived historical series: snapshots, whale history and whale/price correlation
 * (docs/history-whales.md). An `interval` is whole hours, days, weeks or months (the stored aggregates are
 * hourly and daily); buckets align as in span.ts. Only closed buckets wholly inside the lookback are
 * served: from the first bucket starting at or after `now - lookback` to the last bucket ended by now.
 */
import type { Plan } from '../access/plans.js'
import { ApiError } from '../errors.js'
import { resolveRange } from './range.js'
import { dateTimeSeconds } from './sql-bounds.js'
import {
  DAY,
  HOUR,
  bucketStarts,
  ceilTo,
  describeSpan,
  floorTo,
  formatSpan,
  isWholeMultiple,
  minus,
  parseSpan,
  type Span
} from './span.js'

/** Most buckets one response holds (about 14 months of hours): keeps a response and its queries bounded. */
export const MAX_BUCKETS = 10_000

/** Longest lookback: the hourly and daily aggregates (candles, funding, OI, whale flows) live 24 months. */
export const MAX_LOOKBACK: Span = { n: 24, unit: 'M' }

/** Closed buckets of one request, oldest first. */
export interface BucketGrid {
  readonly interval: Span
  /** the interval as written, e.g. `4h` */
  readonly name: string
  /** first bucket start, epoch ms (inclusive) */
  readonly from: number
  /** end of the last bucket, epoch ms (exclusive); `from` when there is no bucket */
  readonly end: number
  readonly starts: readonly number[]
  /** true when every bucket is whole days, so the daily tables can serve it */
  readonly daily: boolean
}

function bad(param: string, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param })
}

/** An interval of whole hours, days, weeks or months (`1h`, `4h`, `1d`, `1w`, `1M`); 400 otherwise. */
export function parseInterval(text: string, param = 'interval'): Span {
  const span = parseSpan(text, param)
  if (span.unit === 'y' || !isWholeMultiple(span, HOUR)) {
    throw bad(
      param,
      `${param} must be whole hours, days, weeks or months, e.g. 1h, 4h, 12h, 1d, 1w or 1M (the finest stored data is hourly)`
    )
  }
  return span
}

export interface GridQuery {
  readonly interval: string
  readonly lookback?: string | undefined
}

/** Resolves interval and lookback into the closed buckets to serve; 400 for every limit, naming it. */
export function resolveGrid(q: GridQuery, defaultLookback: Span, plan: Plan | null, nowMs: number): BucketGrid {
  const interval = parseInterval(q.interval)
  const range = resolveRange(
    { lookback: q.lookback },
    { defaultLookback, maxLookback: { span: MAX_LOOKBACK, what: 'this endpoint' }, plan },
    nowMs
  )
  if (minus(range.toMs, interval) < range.fromMs) {
    const lookback = q.lookback === undefined ? defaultLookback : parseSpan(q.lookback, 'lookback')
    throw bad(
      'lookback',
      `lookback (${describeSpan(lookback)}) is shorter than one interval (${describeSpan(interval)}); give a lookback of at least ${formatSpan(interval)}`
    )
  }
  const from = ceilTo(range.fromMs, interval)
  const end = Math.max(from, Math.min(floorTo(range.toMs, interval), floorTo(nowMs, interval)))
  const starts = bucketStarts(from, end, interval, MAX_BUCKETS + 1)
  if (starts.length > MAX_BUCKETS) {
    throw bad(
      'interval',
      `interval ${formatSpan(interval)} over this lookback gives more than ${MAX_BUCKETS} buckets; use a wider interval or a shorter lookback`
    )
  }
  return { interval, name: formatSpan(interval), from, end, starts, daily: isWholeMultiple(interval, DAY) }
}

/**
 * Epoch seconds of a bucket boundary, for `{name:UInt32}` parameters (boundaries are whole hours), clamped
 * to what a DateTime holds (sql-bounds.ts).
 */
export const seconds = (ms: number): number => dateTimeSeconds(ms, 'floor')
