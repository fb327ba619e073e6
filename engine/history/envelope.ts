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

/**
 * Whom the rows are about. Its keys open `meta` in this object's own key order: handlers pass
 * `marketScope(m)` (symbol, base, exchange) or, where they always have, the `Market` itself (base, exchange,
 * symbol); the order is part of the byte-stable output.
 */
export interface HistoryScope {
  readonly symbol: string | null
  readonly base: string | null
  readonly exchange: string | null
}

export interface HistoryMeta extends HistoryScope {
  readonly timeframe: string
  /** served range start, inclusive, epoch ms */
  readonly start: number
  /** served range end, exclusive, epoch ms */
  readonly end: number
  /** records in `data` */
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

/** What one historical answer holds; `meta.rows` is always `data.length`. */
export interface EnvelopeParts<T> {
  readonly data: readonly T[]
  readonly scope: HistoryScope
  readonly timeframe: string
  readonly start: number
  readonly end: number
  readonly source: string
  /** endpoint-specific meta fields, after the common ones */
  readonly extra?: Readonly<Record<string, unknown>>
  /** @default [] */
  readonly gaps?: readonly Gap[]
  /** @default null (the last page) */
  readonly nextCursor?: number | null
}

/**
 * The envelope every historical handler answers with. Field order is fixed (clients and snapshots see the
 * JSON text): data, meta (scope keys, timeframe, start, end, rows, source, then `extra`), gaps, next_cursor.
 */
export function historyEnvelope<T>(p: EnvelopeParts<T>): HistoryEnvelope<T> {
  return {
    data: p.data,
    meta: {
      ...p.scope,
      timeframe: p.timeframe,
      start: p.start,
      end: p.end,
      rows: p.data.length,
      source: p.source,
      ...p.extra
    },
    gaps: p.gaps ?? [],
    next_cursor: p.nextCursor ?? null
  }
}

/** A market as the scope of an answer, in the usual key order: symbol, base, exchange. */
export function marketScope(m: { readonly symbol: string; readonly base: string; readonly exchange: string }) {
  return { symbol: m.symbol, base: m.base, exchange: m.exchange }
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
