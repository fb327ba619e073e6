/**
 * @module
 * The one envelope of historical responses (docs/history.md):
 * `{ data, meta, gaps, next_cursor }`.
 * - `data`: the records, oldest first;
 * - `meta`: what was served: symbol, base, exchange, timeframe, the range actually covered
 *   (`start` inclusive, `end` exclusive, epoch ms), row count and the source table;
 * - `gaps`: bucket ranges inside the served range with no underlying data, `[start, end)` epoch ms. Gaps
 *   are listed, never filled with invented prices;
 * - `next_cursor`: epoch ms where the next page starts (pass as `cursor`), null on the last page.
 */
import { bucketStarts, plus, type Span } from './span.js'

export interface Gap {
  /** first missing bucket start, epoch ms */
  readonly start: number
  /** end of the last missing bucket (exclusive), epoch ms */
  readonly end: number
}

export interface HistoryMeta {
  readonly symbol: string | null
  readonly base: string | null
  readonly exchange: string | null
  readonly timeframe: string
  /** served range start, inclusive, epoch ms */
  readonly start: number
  /** served range end, exclusive, epoch ms */
  readonly end: number
  readonly rows: number
  /** the table or view the rows come from */
  readonly source: string
  readonly [extra: string]: unknown
}

export interface HistoryEnvelope<T> {
  readonly data: readonly T[]
  readonly meta: HistoryMeta
  readonly gaps: readonly Gap[]
  readonly next_cursor: number | null
}

/**
 * Ranges of buckets of width `span` in [fromMs, toMs) that are not in `present` (bucket starts, ms).
 * Adjacent missing buckets merge into one gap.
 */
export function findGaps(present: Iterable<number>, fromMs: number, toMs: number, span: Span): Gap[] {
  const have = new Set(present)
  const gaps: Gap[] = []
  let open: number | null = null
  let last = 0
  for (const b of bucketStarts(fromMs, toMs, span)) {
    if (have.has(b)) {
      if (open !== null) gaps.push({ start: open, end: plus(last, span) })
      open = null
    } else {
      if (open === null) open = b
      last = b
    }
  }
  if (open !== null) gaps.push({ start: open, end: plus(last, span) })
  return gaps
}
