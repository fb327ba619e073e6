/**
 * @module
 * The whale rows of one base asset (engine/live/whale-window.ts keeps one per base), oldest first, and
 * the confirmation model's 24 h whale inputs over them. Kept up to date as rows arrive (`add`), so a new
 * row costs an insertion into its base's rows rather than a rebuild of every base's; the inputs of a
 * window are computed once per distinct set of rows: a read whose 24 h window holds the same rows as the
 * previous read (no row of the base arrived or aged out since, same exchange wallets) returns the same
 * figures without rescanning.
 */
import type { WhaleTransferRecord } from '../records/types.js'
import { exchangeWalletSet } from '../whales/exchange-wallets.js'

/** The confirmation model's whale inputs over a window (WhaleWindow.flows24h). */
export interface WhaleFlows {
  /** net USD over the window, summed per wallet then over wallets; null when no row counted */
  readonly net: number | null
  /** wallets with a positive net (accumulating) */
  readonly longs: number
  /** wallets with a negative net (distributing) */
  readonly shorts: number
}

/** Rows older than the window dropped from a base's rows once they are at least this many... */
const TRIM_MIN = 64
/** ...and at least this share of its rows: a trim copies the rows, so it happens once per many arrivals. */
const TRIM_SHARE = 0.25

/** The first index of `rows` (sorted by ts) whose ts is >= `ts` (`after`: > `ts`), by binary search. */
function bound(rows: readonly WhaleTransferRecord[], ts: number, after: boolean): number {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const t = rows[mid]!.ts
    if (t < ts || (after && t === ts)) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class BaseRows {
  /** sorted by ts, rows of equal ts in arrival order: the order of the window's sorted rows */
  private rows: WhaleTransferRecord[] = []
  /** bumped by every change of `rows` (an insertion or a trim moves indices) */
  private version = 0
  /** the last read's window and figures: valid while version, bounds and exchange wallets are the same */
  private last: {
    readonly version: number
    readonly lo: number
    readonly hi: number
    readonly wallets: ReadonlySet<string>
    readonly flows: WhaleFlows
  } | null = null

  /** Adds a row after every row of the same or an earlier ts (it arrived after them). */
  add(r: WhaleTransferRecord): void {
    const rows = this.rows
    if (rows.length === 0 || rows[rows.length - 1]!.ts <= r.ts) rows.push(r)
    else rows.splice(bound(rows, r.ts, true), 0, r)
    this.version++
  }

  /** Drops rows older than `cutoffMs` (epoch ms) once they are many enough (TRIM_MIN, TRIM_SHARE). */
  trim(cutoffMs: number): void {
    const n = bound(this.rows, cutoffMs, false)
    if (n >= TRIM_MIN && n >= this.rows.length * TRIM_SHARE) {
      this.rows = this.rows.slice(n)
      this.version++
    }
  }

  /**
   * Net USD per wallet of the rows with ts in [sinceMs, nowMs] (transfers in positive, out negative; a
   * labelled exchange wallet's rows left out), summed, and the wallets net accumulating / distributing.
   */
  flows(sinceMs: number, nowMs: number): WhaleFlows {
    const lo = bound(this.rows, sinceMs, false)
    const hi = bound(this.rows, nowMs, true)
    const wallets = exchangeWalletSet()
    const last = this.last
    if (last && last.version === this.version && last.lo === lo && last.hi === hi && last.wallets === wallets) {
      return last.flows
    }
    const perWallet = new Map<string, number>()
    let seen = false
    for (let i = lo; i < hi; i++) {
      const r = this.rows[i]!
      if (wallets.has(r.address)) continue
      seen = true
      const signed = r.event_type === 'transfer_in' ? r.usd_value : -r.usd_value
      perWallet.set(r.address, (perWallet.get(r.address) ?? 0) + signed)
    }
    let net = 0
    let longs = 0
    let shorts = 0
    for (const v of perWallet.values()) {
      net += v
      if (v > 0) longs++
      else if (v < 0) shorts++
    }
    const flows: WhaleFlows = Object.freeze({ net: seen ? net : null, longs, shorts })
    this.last = { version: this.version, lo, hi, wallets, flows }
    return flows
  }
}
