/**
 * @module
 * The whale transfers of the last WINDOW_MS (7 days, the longest window `/v1/whales/events` serves), kept
 * in memory for the whale endpoints and the confirmation model. Bounded: beyond MAX_ROWS the oldest rows
 * are dropped and counted.
 */
import type { WhaleTransferRecord } from '../records/types.js'
import { assetOfToken } from '../history/whale-assets.js'
import { BaseRows, type WhaleFlows } from './whale-base-rows.js'

export const WHALE_WINDOW_MS = 7 * 86_400_000

/** the window's first moment at `nowMs`, epoch ms: rows (and chain event details) older than this are not served */
export function whaleWindowStart(nowMs = Date.now()): number {
  return nowMs - WHALE_WINDOW_MS
}
/** Rows kept at most (a few hundred a day per chain in practice; this is a safety bound). */
const MAX_ROWS = 500_000

/**
 * The base asset a whale transfer of `token` counts for in the confirmation model: the asset the whale
 * history counts it under (engine/history/whale-assets.ts: each chain's wrapped native and the bridged forms
 * fold into their coin, WBNB -> BNB, BTCB -> BTC; any other token is itself, upper case).
 */
export function whaleBase(token: string): string {
  return assetOfToken(token)
}

/**
 * Rows of one applied batch the per-base index takes row by row at most; a larger batch drops the index
 * (rebuilt at the next read in one pass over the window), bounding what rows arriving out of order cost.
 */
const INDEX_BATCH_MAX = 1_000

/** The inputs of a base without rows in the window. */
const NO_FLOWS: WhaleFlows = Object.freeze({ net: null, longs: 0, shorts: 0 })

/** The base's rows in `index`, added empty when missing. */
function baseRowsOf(index: Map<string, BaseRows>, base: string): BaseRows {
  let rows = index.get(base)
  if (!rows) index.set(base, (rows = new BaseRows()))
  return rows
}

interface Entry {
  readonly r: WhaleTransferRecord
  /** arrival sequence number: a snapshot is "every row that had arrived up to seq" */
  readonly seq: number
}

export class WhaleWindow {
  private rows: Entry[] = []
  private sorted = true
  private nextSeq = 1
  /**
   * The rows of each base (`whaleBase` of the token; swaps left out), oldest first: what `flows24h` reads,
   * so a pass of the signal engine over every base reads each row once rather than once per base. Built
   * from the window on the first read after a reset (or after a batch larger than INDEX_BATCH_MAX, or rows
   * dropped because the window was full), then kept up to date by `apply` row by row. Rows pruned from the
   * window stay in a base's rows until it trims them (reads skip them by time: a read's 24 h lie inside
   * the 7-day window).
   */
  private byBase: Map<string, BaseRows> | null = null
  /** rows dropped because the window was full */
  dropped = 0

  /** Sequence number of the newest row (0 when empty): the snapshot a listing was made from. */
  get seq(): number {
    return this.nextSeq - 1
  }

  apply(records: readonly WhaleTransferRecord[]): void {
    // a large batch (a bulk load) drops the index: one rebuild at the next read beats many insertions
    if (records.length > INDEX_BATCH_MAX) this.byBase = null
    const index = this.byBase
    for (const r of records) {
      const last = this.rows[this.rows.length - 1]
      if (last && r.ts < last.r.ts) this.sorted = false
      this.rows.push({ r, seq: this.nextSeq++ })
      if (index !== null && r.event_type !== 'swap') baseRowsOf(index, whaleBase(r.token)).add(r)
    }
    if (this.rows.length > MAX_ROWS) {
      this.sort()
      this.dropped += this.rows.length - MAX_ROWS
      this.rows = this.rows.slice(this.rows.length - MAX_ROWS)
      // the dropped rows may lie within 24 h: the index is rebuilt from the rows kept
      this.byBase = null
    }
  }

  reset(records: readonly WhaleTransferRecord[]): void {
    this.rows = []
    this.byBase = null
    this.sorted = true
    this.apply(records)
  }

  private sort(): void {
    if (!this.sorted) {
      this.rows.sort((a, b) => a.r.ts - b.r.ts || a.seq - b.seq)
      this.sorted = true
    }
  }

  /**
   * Rows with ts in [sinceMs, nowMs] that had arrived by `maxSeq` (default: all), oldest first. Rows older
   * than the window (counted back from the clock, or from `nowMs` when earlier: a window as of a past
   * moment) are dropped here.
   */
  since(sinceMs: number, nowMs: number, maxSeq = Infinity): readonly WhaleTransferRecord[] {
    const out: WhaleTransferRecord[] = []
    const first = this.firstAt(sinceMs, nowMs) // may replace this.rows (drops rows out of the window)
    const rows = this.rows
    for (let i = first; i < rows.length; i++) {
      const e = rows[i]!
      if (e.r.ts > nowMs) break
      if (e.seq <= maxSeq) out.push(e.r)
    }
    return out
  }

  /**
   * Sorts, drops the rows older than the window (counted back from the clock, or from `nowMs` when
   * earlier), and returns the index of the first row with ts >= `sinceMs` (binary search: rows are sorted
   * by ts, so a 24 h read of the 7-day window visits only its own rows).
   */
  private firstAt(sinceMs: number, nowMs: number): number {
    this.sort()
    const cutoff = whaleWindowStart(Math.min(Date.now(), nowMs))
    let drop = 0
    while (drop < this.rows.length && this.rows[drop]!.r.ts < cutoff) drop++
    if (drop > 0) this.rows = this.rows.slice(drop)
    let lo = 0
    let hi = this.rows.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.rows[mid]!.r.ts < sinceMs) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /**
   * Whale inputs of the confirmation model for a base asset over the last 24 h: net USD per wallet of its
   * transfers in and out (swaps excluded), summed, and the wallets net accumulating / distributing. A row
   * whose wallet is a labelled exchange wallet is left out: chain sources report the exchange's side of a
   * deposit or withdrawal too, and counting it would cancel the whale's side (the exchange flow has its
   * own input, `exchange_netflow_usd_24h`).
   */
  flows24h(base: string, nowMs: number): WhaleFlows {
    const sinceMs = nowMs - 86_400_000
    this.firstAt(sinceMs, nowMs) // sorts and prunes the window
    const rows = this.baseRows().get(base)
    if (!rows) return NO_FLOWS
    rows.trim(whaleWindowStart(Math.min(Date.now(), nowMs)))
    return rows.flows(sinceMs, nowMs)
  }

  /** The per-base rows (`byBase`), built from the sorted window when missing. */
  private baseRows(): Map<string, BaseRows> {
    if (this.byBase) return this.byBase
    const index = new Map<string, BaseRows>()
    for (const e of this.rows) if (e.r.event_type !== 'swap') baseRowsOf(index, whaleBase(e.r.token)).add(e.r)
    return (this.byBase = index)
  }

  get size(): number {
    return this.rows.length
  }
}
