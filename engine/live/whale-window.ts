/**
 * @module
 * The whale transfers of the last WINDOW_MS (7 days, the longest window `/v1/whales/events` serves), kept
 * in memory for the whale endpoints and the confirmation model. Bounded: beyond MAX_ROWS the oldest rows
 * are dropped and counted.
 */
import type { WhaleTransferRecord } from '../records/types.js'

export const WHALE_WINDOW_MS = 7 * 86_400_000
/** Rows kept at most (a few hundred a day per chain in practice; this is a safety bound). */
const MAX_ROWS = 500_000

/** Wrapped tokens count as their underlying asset for the confirmation model. */
const TOKEN_BASE: Readonly<Record<string, string>> = { WBTC: 'BTC', WETH: 'ETH', WBNB: 'BNB', WAVAX: 'AVAX' }

export class WhaleWindow {
  private rows: WhaleTransferRecord[] = []
  private sorted = true
  /** rows dropped because the window was full */
  dropped = 0

  apply(records: readonly WhaleTransferRecord[]): void {
    for (const r of records) {
      const last = this.rows[this.rows.length - 1]
      if (last && r.ts < last.ts) this.sorted = false
      this.rows.push(r)
    }
    if (this.rows.length > MAX_ROWS) {
      this.sort()
      this.dropped += this.rows.length - MAX_ROWS
      this.rows = this.rows.slice(this.rows.length - MAX_ROWS)
    }
  }

  reset(records: readonly WhaleTransferRecord[]): void {
    this.rows = []
    this.sorted = true
    this.apply(records)
  }

  private sort(): void {
    if (!this.sorted) {
      this.rows.sort((a, b) => a.ts - b.ts)
      this.sorted = true
    }
  }

  /** Rows with ts in [sinceMs, now], oldest first (drops rows older than the window). */
  since(sinceMs: number, nowMs: number): readonly WhaleTransferRecord[] {
    this.sort()
    const cutoff = nowMs - WHALE_WINDOW_MS
    let drop = 0
    while (drop < this.rows.length && this.rows[drop]!.ts < cutoff) drop++
    if (drop > 0) this.rows = this.rows.slice(drop)
    let i = 0
    while (i < this.rows.length && this.rows[i]!.ts < sinceMs) i++
    return this.rows.slice(i)
  }

  /** Whale inputs of the confirmation model for a base asset over the last 24 h. */
  flows24h(base: string, nowMs: number): { net: number | null; longs: number; shorts: number } {
    const perWallet = new Map<string, number>()
    let seen = false
    for (const r of this.since(nowMs - 86_400_000, nowMs)) {
      if ((TOKEN_BASE[r.token] ?? r.token) !== base || r.event_type === 'swap') continue
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
    return { net: seen ? net : null, longs, shorts }
  }

  get size(): number {
    return this.rows.length
  }
}
