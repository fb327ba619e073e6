/**
 * @module
 * The store reads of `GET /v1/onchain/metrics` (raw `onchain_metrics` rows): which asset a request names
 * among those with metrics, and each requested metric's latest reading and series. Every value is a bound
 * parameter; the route only parses, checks the plan and wraps.
 */
import { ApiError } from '../errors.js'
import type { Store } from '../store/store.js'
import { parseSymbol, resolveSymbol } from '../symbols/resolve.js'
import { metricSources, type MetricSource } from './metric-sources.js'
import type { PointInTime } from '../asof/point-in-time.js'

/** One reading: `ts` in epoch seconds, `value` in the metric's own unit (USD, ratio, count). */
export interface OnchainPoint {
  readonly ts: number
  readonly value: number
}

export interface OnchainSeries {
  /** the newest reading ever stored (not only within the window); null without any */
  readonly latest: OnchainPoint | null
  /** the readings of the window, oldest first */
  readonly points: readonly OnchainPoint[]
  /** `chain:<chains>` when measured by the chain sources, else `stored` (engine/onchain/metric-sources.ts) */
  readonly source: MetricSource
}

/**
 * The asset `raw` names among those with metrics (BTC, BTCUSDT, BTC/USDT, ... through the one symbol
 * resolver): one count for the common case, the list of assets only when that misses (an unknown asset's
 * suggestions, or a name read whole such as STETH). Throws the resolver's 400 for an unknown asset.
 */
export async function resolveOnchainAsset(store: Store, raw: string): Promise<string> {
  const parsed = parseSymbol(raw, 'asset')
  if (!(parsed instanceof ApiError)) {
    const [held] = await store.query<{ n: number }>(
      'SELECT count() AS n FROM onchain_metrics WHERE asset = {asset:String}',
      { asset: parsed.base }
    )
    if (held && held.n > 0) return parsed.base
  }
  const assets = await store.query<{ asset: string }>('SELECT DISTINCT asset FROM onchain_metrics')
  const known = new Set(assets.map((a) => a.asset))
  return resolveSymbol(raw, known, 'asset', (a) => `no on-chain metrics for ${a}`).base
}

/**
 * Each of `metrics` of `asset`: its readings of the last `hours` and its latest reading. Every requested
 * metric has an entry, empty when the store holds none of it; keys in the order requested. With `pit`:
 * only readings with `ts <= asOf` received by `knownBy`, the window counted back from `asOf`.
 */
export async function onchainMetricSeries(
  store: Store,
  asset: string,
  metrics: readonly string[],
  hours: number,
  pit: PointInTime | null = null
): Promise<Record<string, OnchainSeries>> {
  const known = pit
    ? ` AND ts <= fromUnixTimestamp64Milli({asOf:Int64}, 'UTC') AND ingest_ts <= fromUnixTimestamp64Milli({knownBy:Int64}, 'UTC')`
    : ''
  const bounds: Record<string, number> = pit ? { asOf: pit.asOfMs, knownBy: pit.knownByMs } : {}
  // the window starts `hours` before now (live) or before asOf; a reading counts by its whole second
  const since = pit
    ? `fromUnixTimestamp64Milli({asOf:Int64}, 'UTC') - INTERVAL {hours:UInt32} HOUR`
    : 'now64(3) - INTERVAL {hours:UInt32} HOUR'
  // the event time aliased ts_s: an alias named ts would shadow the column in WHERE
  const rows = await store.query<{ metric: string; ts_s: number; value: number }>(
    `SELECT metric, toUnixTimestamp(ts) AS ts_s, value FROM onchain_metrics
     WHERE asset = {asset:String} AND metric IN {metrics:Array(String)}
       AND toDateTime64(toUnixTimestamp(ts), 3, 'UTC') >= ${since}${known}
     ORDER BY metric, ts_s`,
    { asset, metrics, hours, ...bounds }
  )
  // aliased last_ts: an alias named ts would shadow the column inside argMax
  const latest = await store.query<{ metric: string; last_ts: number; value: number }>(
    `SELECT metric, toUnixTimestamp(max(ts)) AS last_ts, argMax(value, ts) AS value FROM onchain_metrics
     WHERE asset = {asset:String} AND metric IN {metrics:Array(String)}${known} GROUP BY metric`,
    { asset, metrics, ...bounds }
  )
  const sources = await metricSources(store, asset, metrics)
  const out: Record<string, { latest: OnchainPoint | null; points: OnchainPoint[]; source: MetricSource }> = {}
  for (const m of metrics) out[m] = { latest: null, points: [], source: sources[m]! }
  for (const r of rows) out[r.metric]!.points.push({ ts: r.ts_s, value: r.value })
  for (const l of latest) out[l.metric]!.latest = { ts: l.last_ts, value: l.value }
  return out
}
