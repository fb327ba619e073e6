/**
 * @module
 * Snapshot records: the chosen metrics of one asset (or one market) side by side on a dense bucket grid,
 * oldest first (docs/history-whales.md). Per bucket:
 * - price: close of the price market (one market: the named one, or the asset's preferred one);
 * - volume: quote volume summed over the markets (USD);
 * - oi: open interest in USD summed over the markets that reported in the bucket;
 * - funding_rate: mean over the markets of the 8-hour-equivalent funding rate (decimal fraction);
 * - whale_net_flow: USD into tracked whale wallets minus out, for the asset's tokens.
 * A metric without data in a bucket is null, never 0.
 */
import type { MarketPoint } from './snapshot-series.js'

export const SNAPSHOT_METRICS = ['whale_net_flow', 'funding_rate', 'oi', 'price', 'volume'] as const
export type SnapshotMetric = (typeof SNAPSHOT_METRICS)[number]

/** A snapshot record: `timestamp` and the requested metrics only. */
export type SnapshotRecord = { readonly timestamp: number } & Partial<Record<SnapshotMetric, number | null>>

export type Combine = 'sum' | 'mean'

/** Values of several markets folded per bucket start; markets without a value in a bucket are skipped. */
export function combineMarkets(points: readonly MarketPoint[], how: Combine): Map<number, number> {
  const acc = new Map<number, { sum: number; n: number }>()
  for (const p of points) {
    if (p.v === null || !Number.isFinite(p.v)) continue
    const a = acc.get(p.t) ?? { sum: 0, n: 0 }
    a.sum += p.v
    a.n += 1
    acc.set(p.t, a)
  }
  const out = new Map<number, number>()
  for (const [t, a] of acc) out.set(t, how === 'sum' ? a.sum : a.sum / a.n)
  return out
}

/** A per-bucket series as a map, from a list aligned with the grid's starts (nulls dropped). */
export function seriesAt(starts: readonly number[], values: readonly (number | null)[]): Map<number, number> {
  const out = new Map<number, number>()
  starts.forEach((t, i) => {
    const v = values[i]
    if (v !== null && v !== undefined) out.set(t, v)
  })
  return out
}

/** One record per bucket start with each requested metric (null where its series has no value). */
export function snapshotRecords(
  starts: readonly number[],
  metrics: readonly SnapshotMetric[],
  series: ReadonlyMap<SnapshotMetric, ReadonlyMap<number, number>>
): SnapshotRecord[] {
  return starts.map((t) => {
    const rec: Record<string, number | null> = { timestamp: t }
    for (const m of metrics) rec[m] = series.get(m)?.get(t) ?? null
    return rec as SnapshotRecord
  })
}

/** Bucket starts where every requested metric has a value (the others are the envelope's gaps). */
export function completeBuckets(records: readonly SnapshotRecord[], metrics: readonly SnapshotMetric[]): number[] {
  return records.filter((r) => metrics.every((m) => r[m] !== null)).map((r) => r.timestamp)
}
