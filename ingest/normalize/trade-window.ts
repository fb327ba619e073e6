/**
 * @module
 * Trades missed while a connection was down, for venues whose trade ids cannot reveal gaps (Bybit UUIDs,
 * OKX ids not documented as contiguous). Per market the normalizer keeps the recent trade ids (duplicate
 * detection), the newest trade emitted, and at most one open reconnect window:
 *
 * - The transport pushes a reconnect marker (channel RECONNECT_CHANNEL, `{"symbols":[...]}`) into the raw
 *   queue when a connection reopens, before it subscribes again. The queue is FIFO, so every message of the
 *   old connection is normalized before the marker and every message of the new one after it. The marker
 *   is recorded like any message, so a replay opens the same windows.
 * - At the marker a market that has traded opens a window: `anchor` is its newest trade then (the last one
 *   before the drop), `after` becomes the first socket trade that follows (the first one after the reopen).
 *   A market that never traded opens none. The transport is told (`ReconnectGaps.opened`) and fetches the
 *   venue's recent trades for the market; the answer comes back through the queue like any REST answer.
 * - The answer (rows oldest first) is matched to the window (`missedRows`): rows after the anchor and before
 *   `after`, not among the recent ids, are emitted through the socket's trade mapping. The window closes.
 *   When the page does not reach back to the anchor, older missed trades may be lost: `reachedBack` false.
 * - A second reopen before the window's answer arrived widens the window (same anchor, `after` cleared).
 *   Without `after` the recent ids are the only duplicate check, so when they are full rows older than the
 *   oldest remembered one are not emitted (they may have been seen and forgotten).
 */

/** Channel of the reconnect markers the transports of Bybit and OKX push into their raw queue. */
export const RECONNECT_CHANNEL = 'reconnect'

/** The marker text for the markets (trade channels) of a reopened connection. */
export function reconnectMarker(symbols: readonly string[]): string {
  return JSON.stringify({ symbols })
}

/** The symbols of a parsed marker; null when it is not one. */
function markerSymbols(msg: unknown): string[] | null {
  const symbols = (msg as { symbols?: unknown } | null)?.symbols
  if (!Array.isArray(symbols) || !symbols.every((s) => typeof s === 'string')) return null
  return symbols as string[]
}

/** What the transport hears from the normalizer about reconnect windows (counters, fetches). */
export interface ReconnectGaps {
  /** a window opened (or widened) for `symbol`, which had traded: its recent trades should be fetched */
  opened(symbol: string): void
  /** a recent-trades page was matched to the window of `symbol`: `recovered` trades emitted */
  served(symbol: string, recovered: number, reachedBack: boolean): void
}

export const NO_GAPS: ReconnectGaps = { opened: () => {}, served: () => {} }

/** A market's trade state by symbol (undefined: not followed). */
export type TradesOf = (symbol: string) => MarketTrades | undefined

/** A parsed reconnect marker: opens the window of each of its markets that has traded, and tells `gaps`. */
export function openReconnectWindows(msg: unknown, tradesOf: TradesOf, gaps: ReconnectGaps): 'control' | 'malformed' {
  const symbols = markerSymbols(msg)
  if (symbols === null) return 'malformed'
  for (const s of symbols) if (tradesOf(s)?.reopen()) gaps.opened(s)
  return 'control'
}

/** An error answer instead of a recent-trades page: the market's open window closes unfilled. */
export function closeWindowUnfilled(symbol: string | undefined, tradesOf: TradesOf, gaps: ReconnectGaps): void {
  if (symbol !== undefined && tradesOf(symbol)?.fill([])) gaps.served(symbol, 0, false)
}

export interface TradeRef {
  readonly id: string
  /** trade time, epoch ms */
  readonly ts: number
}

/** Trade ids remembered per market for duplicate detection (a reconnect may repeat the last push). */
export const RECENT_IDS = 256

/** The last RECENT_IDS trade ids of a market (a ring) with their trade times. */
export class RecentIds {
  private readonly ids: string[] = []
  private readonly times: number[] = []
  private readonly set = new Set<string>()
  private next = 0

  has(id: string): boolean {
    return this.set.has(id)
  }

  get full(): boolean {
    return this.ids.length === RECENT_IDS
  }

  /** Oldest trade time remembered (Infinity when empty). */
  minTs(): number {
    let min = Infinity
    for (const t of this.times) if (t < min) min = t
    return min
  }

  add(id: string, ts: number): void {
    if (this.ids.length < RECENT_IDS) {
      this.ids.push(id)
      this.times.push(ts)
    } else {
      this.set.delete(this.ids[this.next]!)
      this.ids[this.next] = id
      this.times[this.next] = ts
      this.next = (this.next + 1) % RECENT_IDS
    }
    this.set.add(id)
  }
}

interface Window {
  readonly anchor: TradeRef
  after: TradeRef | null
}

/** The trade state of one market: recent ids, newest trade, open reconnect window. */
export class MarketTrades {
  readonly recent = new RecentIds()
  /** newest trade emitted (socket or fill); null: the market has not traded since start */
  last: TradeRef | null = null
  private window: Window | null = null

  /** Remembers an emitted trade; a socket trade right after a reopen becomes the window's upper bound. */
  accept(id: string, ts: number, fromSocket: boolean): void {
    this.recent.add(id, ts)
    if (this.last === null || ts >= this.last.ts) this.last = { id, ts }
    if (fromSocket && this.window !== null && this.window.after === null) this.window.after = { id, ts }
  }

  /** A reopen: opens (or widens) the window; false when the market never traded (nothing to check). */
  reopen(): boolean {
    if (this.last === null) return false
    if (this.window === null) this.window = { anchor: this.last, after: null }
    else this.window.after = null
    return true
  }

  /** Matches a page (oldest first) to the open window and closes it; null when no window is open. */
  fill<R extends TradeRef>(page: readonly R[]): { rows: R[]; reachedBack: boolean } | null {
    const w = this.window
    if (w === null) return null
    this.window = null
    return missedRows(page, w.anchor, w.after, this.recent)
  }
}

/**
 * The rows of `page` (oldest first) strictly between `anchor` and `after` that are not in `recent`. Bounds
 * are found by id; a bound missing from the page falls back to trade time (rows at the anchor's millisecond
 * count as after it, rows at `after`'s as before it: `recent` catches those already seen). Without `after`
 * and with `recent` full, rows older than its oldest entry are left out. `reachedBack`: the page holds the
 * anchor or a row older than it.
 */
export function missedRows<R extends TradeRef>(
  page: readonly R[],
  anchor: TradeRef,
  after: TradeRef | null,
  recent: RecentIds
): { rows: R[]; reachedBack: boolean } {
  const anchorAt = page.findIndex((r) => r.id === anchor.id)
  const reachedBack = anchorAt >= 0 || (page.length > 0 && page[0]!.ts < anchor.ts)
  let start = anchorAt + 1
  if (anchorAt < 0) {
    start = page.findIndex((r) => r.ts >= anchor.ts)
    if (start < 0) start = page.length
  }
  let end = page.length
  if (after !== null) {
    const afterAt = page.findIndex((r) => r.id === after.id)
    end = afterAt >= 0 ? afterAt : page.findIndex((r) => r.ts > after.ts)
    if (end < 0) end = page.length
  }
  const floor = after === null && recent.full ? recent.minTs() : -Infinity
  const rows: R[] = []
  for (let i = start; i < end; i++) {
    const r = page[i]!
    if (r.ts >= floor && !recent.has(r.id)) rows.push(r)
  }
  return { rows, reachedBack }
}

/**
 * A recent-trades page (oldest first) against `symbol`'s open reconnect window: each missed row is handed to
 * `trade` and the window is closed with how many were recovered. `outcome` is the page's own (`malformed`
 * when rows were left out); a row `trade` refuses as malformed makes it `malformed`. Without an open window
 * (an answer already served) nothing is mapped.
 */
export function serveFill<R extends TradeRef, O extends string>(
  symbol: string,
  page: readonly R[],
  outcome: O | 'malformed',
  tradesOf: TradesOf,
  gaps: ReconnectGaps,
  trade: (row: R) => string
): O | 'malformed' {
  const fill = tradesOf(symbol)?.fill(page)
  if (fill === null || fill === undefined) return outcome
  let recovered = 0
  let out = outcome
  for (const row of fill.rows) {
    const o = trade(row)
    if (o === 'ok') recovered++
    else if (o === 'malformed') out = 'malformed'
  }
  gaps.served(symbol, recovered, fill.reachedBack)
  return out
}
