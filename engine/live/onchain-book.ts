/**
 * @module
 * Live on-chain inputs of the confirmation model per asset: the exchange net flow readings of the last
 * WINDOW_MS (summed for a 24 h figure) and the latest MVRV.
 */
import type { OnchainMetricRecord } from '../records/types.js'

/** Readings kept per asset: two days covers the 24 h sum with margin. */
const WINDOW_MS = 48 * 3_600_000
/** Most net-flow readings kept per asset (hourly readings need 48; a faster source is capped here). */
const MAX_READINGS = 5_000

interface AssetState {
  netflow: { ts: number; value: number }[]
  mvrv: { ts: number; value: number } | null
}

export class OnchainBook {
  private readonly assets = new Map<string, AssetState>()

  apply(records: readonly OnchainMetricRecord[]): void {
    for (const r of records) {
      let a = this.assets.get(r.asset)
      if (!a) this.assets.set(r.asset, (a = { netflow: [], mvrv: null }))
      if (r.metric === 'exchange_netflow_usd') {
        a.netflow.push({ ts: r.ts, value: r.value })
        if (a.netflow.length > MAX_READINGS) a.netflow.splice(0, a.netflow.length - MAX_READINGS)
      } else if (r.metric === 'mvrv' && (!a.mvrv || r.ts >= a.mvrv.ts)) {
        a.mvrv = { ts: r.ts, value: r.value }
      }
    }
  }

  clear(): void {
    this.assets.clear()
  }

  /** Sum of exchange net flow readings in (now − 24 h, now], USD; null without readings. */
  netflow24h(asset: string, nowMs: number): number | null {
    const a = this.assets.get(asset)
    if (!a) return null
    a.netflow = a.netflow.filter((x) => x.ts > nowMs - WINDOW_MS)
    const recent = a.netflow.filter((x) => x.ts > nowMs - 24 * 3_600_000 && x.ts <= nowMs)
    return recent.length ? recent.reduce((s, x) => s + x.value, 0) : null
  }

  mvrv(asset: string): number | null {
    return this.assets.get(asset)?.mvrv?.value ?? null
  }
}
