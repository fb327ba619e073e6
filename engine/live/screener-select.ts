/**
 * @module
 * The screener answer of a book for one query: the rows of `ScreenerBook.rows` filtered by base asset,
 * venue and the presence of a metric, sorted and limited (`GET /v1/derivatives/screener`, live and as of a
 * moment). A selection is the query reduced to what changes the answer, so two spellings of one question
 * (a `metric` sorted by its own field with or without `sort`) share one key in the live answer cache
 * (engine/live/screener-answers.ts).
 */
import type { ScreenerBook, ScreenerRow } from './screener-book.js'

/** The row field of each `metric` value: rows must have it, and it is the sort unless `sort` is given. */
export const METRIC_FIELD: Readonly<Record<string, keyof ScreenerRow>> = {
  open_interest: 'open_interest_change_24h',
  funding_rate: 'funding_rate',
  volume: 'volume_change_24h'
}

/** What a screener answer depends on besides the book and the hour. */
export interface ScreenerSelection {
  /** keep the rows of this base asset; null: every base */
  readonly base: string | null
  /** keep the rows of this venue; null: every venue */
  readonly exchange: string | null
  /** keep only the rows where this field is not null; null: every row */
  readonly require: keyof ScreenerRow | null
  readonly sort: keyof ScreenerRow
  readonly desc: boolean
  /** rows at most (1 to 1000) */
  readonly limit: number
}

/** The screener answer's body: `updated` is the newest reading among the rows, epoch seconds (0 without rows). */
export interface ScreenerAnswerBody {
  readonly updated: number
  readonly count: number
  readonly rows: readonly ScreenerRow[]
}

/**
 * The selection's cache key. Bases and venues are names from the catalog and the screener's markets
 * (letters and digits, never `|`), so the fields cannot run into one another.
 */
export function selectionKey(s: ScreenerSelection): string {
  return `${s.base ?? ''}|${s.exchange ?? ''}|${s.require ?? ''}|${s.sort}|${s.desc ? 'desc' : 'asc'}|${s.limit}`
}

/**
 * Rows by `field` (nulls last in either order), ties by venue then symbol. Two rows without the field
 * keep an order by symbol only (the order the book lists them in decides among equal symbols).
 */
function compare(field: keyof ScreenerRow, desc: boolean): (a: ScreenerRow, b: ScreenerRow) => number {
  return (a, b) => {
    const x = a[field]
    const y = b[field]
    if (x === null && y === null) return a.symbol < b.symbol ? -1 : 1
    if (x === null) return 1
    if (y === null) return -1
    const c = typeof x === 'string' ? x.localeCompare(y as string) : (x as number) - (y as number)
    return (
      (desc ? -c : c) || (a.exchange < b.exchange ? -1 : a.exchange > b.exchange ? 1 : a.symbol < b.symbol ? -1 : 1)
    )
  }
}

/** The answer of `book` at `nowMs` (epoch ms; the rows' 24 h windows are those of its UTC hour) for `s`. */
export function screenerAnswer(book: ScreenerBook, nowMs: number, s: ScreenerSelection): ScreenerAnswerBody {
  let rows = book.rows(nowMs)
  if (s.base !== null) rows = rows.filter((r) => r.base === s.base)
  if (s.exchange !== null) rows = rows.filter((r) => r.exchange === s.exchange)
  const require = s.require
  if (require !== null) rows = rows.filter((r) => r[require] !== null)
  rows.sort(compare(s.sort, s.desc))
  rows = rows.slice(0, s.limit)
  const updated = rows.reduce((m, r) => Math.max(m, r.updated), 0)
  return { updated, count: rows.length, rows }
}
