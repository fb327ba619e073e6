/**
 * @module
 * The sets of base assets symbols are resolved against (engine/symbols/resolve.ts): the live screener's
 * bases (confirm, screener, push stream) and the bases of a market list (history, export).
 */
import type { ScreenerBook } from '../live/screener-book.js'
import type { KnownBases } from './resolve.js'

/**
 * Bases with a perpetual market in the live screener. `has` is the book's own set lookup; the full list
 * (for suggestions, on the error path) is read from its rows.
 */
export function screenerBases(book: Pick<ScreenerBook, 'hasBase' | 'rows'>): KnownBases {
  return {
    has: (base) => book.hasBase(base),
    values: () => new Set(book.rows(Date.now()).map((r) => r.base))
  }
}

/** Bases of a list of markets, computed once per list (the directory replaces its list, never edits it). */
const listBases = new WeakMap<readonly { readonly base: string }[], ReadonlySet<string>>()

export function basesOf(markets: readonly { readonly base: string }[]): ReadonlySet<string> {
  let set = listBases.get(markets)
  if (!set) listBases.set(markets, (set = new Set(markets.map((m) => m.base))))
  return set
}
