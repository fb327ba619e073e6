/**
 * @module
 * Whale history records (service spec "Whale history record") from per-bucket flows: one record per bucket
 * of the grid, oldest first. A bucket without any whale row of the asset has every field null (no data is
 * not zero flow: the feed may have been down). Exchange inflow/outflow are null also when the bucket's raw
 * rows are no longer all held (beyond the 90-day raw retention). Units: USD at each transfer's time,
 * rounded to cents (the rows' own precision; sums of cents otherwise show float noise like .8200000003).
 */
import type { ExchangeFlowBucket, WhaleFlowBucket } from './whale-flows.js'

export const WHALE_METRICS = ['net_accumulation', 'inflow', 'outflow', 'volume', 'event_count'] as const
export type WhaleMetric = (typeof WHALE_METRICS)[number]

export interface WhaleHistoryRecord {
  /** bucket start, epoch ms */
  readonly timestamp: number
  readonly asset: string
  readonly metric: WhaleMetric
  /** the metric in the bucket (USD, or a count for event_count); null without whale rows */
  readonly value: number | null
  /** distinct tracked wallets active in the bucket */
  readonly whale_count: number | null
  /** USD tracked wallets sent to labelled exchange hot wallets */
  readonly exchange_inflow: number | null
  /** USD tracked wallets received from labelled exchange hot wallets */
  readonly exchange_outflow: number | null
}

/** USD rounded to cents. */
const cents = (usd: number): number => Math.round(usd * 100) / 100

/**
 * - net_accumulation: USD into tracked wallets minus USD out of them (transfer_in - transfer_out); swaps
 *   move no value across the wallet boundary and are left out;
 * - inflow / outflow: the two terms; volume: USD of every row, swaps included; event_count: raw rows.
 */
export function metricValue(metric: WhaleMetric, f: WhaleFlowBucket): number {
  switch (metric) {
    case 'net_accumulation':
      return cents(f.usdIn - f.usdOut)
    case 'inflow':
      return cents(f.usdIn)
    case 'outflow':
      return cents(f.usdOut)
    case 'volume':
      return cents(f.usdTotal)
    case 'event_count':
      return f.events
  }
}

/** One record per bucket start of `starts`. */
export function whaleHistoryRecords(
  asset: string,
  metric: WhaleMetric,
  starts: readonly number[],
  flows: readonly WhaleFlowBucket[],
  exchange: readonly ExchangeFlowBucket[]
): WhaleHistoryRecord[] {
  const flowAt = new Map(flows.map((f) => [f.t, f]))
  const exchangeAt = new Map(exchange.map((x) => [x.t, x]))
  return starts.map((t) => {
    const f = flowAt.get(t)
    const x = exchangeAt.get(t)
    // raw rows of the bucket all held: as many as the aggregates counted
    const rawComplete = f !== undefined && x !== undefined && x.rows === f.events
    return {
      timestamp: t,
      asset,
      metric,
      value: f === undefined ? null : metricValue(metric, f),
      whale_count: f === undefined ? null : f.whales,
      exchange_inflow: rawComplete ? cents(x.inflow) : null,
      exchange_outflow: rawComplete ? cents(x.outflow) : null
    }
  })
}

/** Net accumulation (USD) at each bucket start, null where the asset has no whale row. */
export function netFlowSeries(starts: readonly number[], flows: readonly WhaleFlowBucket[]): (number | null)[] {
  const flowAt = new Map(flows.map((f) => [f.t, f]))
  return starts.map((t) => {
    const f = flowAt.get(t)
    return f === undefined ? null : metricValue('net_accumulation', f)
  })
}
