/**
 * @module
 * Hourly on-chain metrics (at each whole UTC hour) for the top-10 base assets:
 * - `exchange_netflow_usd`: signed USD flowing into (+) or out of (-) exchanges in the hour; leans to
 *   inflows after a sell-off;
 * - `mvrv`: market value / realised value, 0.8..3.5, moving with price and a slow drift;
 * - `active_addresses`: distinct active addresses in the hour, an integer with a daily cycle;
 * - `exchange_reserve_usd`: USD held on exchanges (coins drift slowly, value follows price).
 * Netflow and reserve are generated independently (the reserve is not the running sum of the netflow).
 */
import { gauss, hashKey, smoothNoise, streamId } from './hash-rng.js'
import type { Emitter, SimContext } from './sim-context.js'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

interface AssetProfile {
  readonly asset: string
  /** sd of the hourly exchange netflow, USD */
  readonly netflowUsd: number
  /** MVRV at refPrice */
  readonly mvrv: number
  /** active addresses in an average hour */
  readonly activeHourly: number
  /** exchange reserve at refPrice, USD */
  readonly reserveUsd: number
}

/** the top-10 bases with magnitudes of their public dashboards (2024-2025) */
const PROFILES: readonly AssetProfile[] = [
  { asset: 'BTC', netflowUsd: 40e6, mvrv: 2.1, activeHourly: 32_000, reserveUsd: 240e9 },
  { asset: 'ETH', netflowUsd: 25e6, mvrv: 1.5, activeHourly: 21_000, reserveUsd: 63e9 },
  { asset: 'SOL', netflowUsd: 8e6, mvrv: 1.8, activeHourly: 180_000, reserveUsd: 9e9 },
  { asset: 'XRP', netflowUsd: 6e6, mvrv: 2.4, activeHourly: 9_000, reserveUsd: 15e9 },
  { asset: 'BNB', netflowUsd: 4e6, mvrv: 1.6, activeHourly: 45_000, reserveUsd: 20e9 },
  { asset: 'DOGE', netflowUsd: 3e6, mvrv: 1.9, activeHourly: 3_000, reserveUsd: 6e9 },
  { asset: 'ADA', netflowUsd: 2e6, mvrv: 1.3, activeHourly: 2_500, reserveUsd: 4e9 },
  { asset: 'AVAX', netflowUsd: 1.5e6, mvrv: 1.1, activeHourly: 2_800, reserveUsd: 1.2e9 },
  { asset: 'LINK', netflowUsd: 1.5e6, mvrv: 1.2, activeHourly: 700, reserveUsd: 1.5e9 },
  { asset: 'SUI', netflowUsd: 2e6, mvrv: 1.7, activeHourly: 25_000, reserveUsd: 0.8e9 }
]
/** MVRV moves with price to this power (realised value lags market value) */
const MVRV_PRICE_ELASTICITY = 0.9
const MIN_MVRV = 0.8
const MAX_MVRV = 3.5
/** netflow leans to inflows (+) after a fall: sd units per unit of 24 h log return */
const NETFLOW_MOMENTUM = -15
/** activity peaks at 15:00 UTC (US and Europe overlap), ±15% */
const ACTIVITY_PEAK_HOUR = 15
const ACTIVITY_AMPLITUDE = 0.15
const TAG_NETFLOW = 90
const TAG_NETFLOW_TREND = 91
const TAG_MVRV = 92
const TAG_ACTIVE = 93
const TAG_RESERVE = 94

export function createOnchain(ctx: SimContext): Emitter {
  const { seed, universe, path } = ctx
  const assets = PROFILES.map((p) => ({ p, bi: universe.baseIndex.get(p.asset)! }))
  return {
    emit(lo, hi, _mode, sink) {
      for (let t = Math.ceil(lo / HOUR_MS) * HOUR_MS; t < hi; t += HOUR_MS) {
        const hour = t / HOUR_MS
        for (const { p, bi } of assets) {
          const price = path.at(bi, t)
          const refPrice = universe.bases[bi]!.refPrice
          const flowZ =
            0.9 * gauss(hashKey(seed, streamId(TAG_NETFLOW, bi), hour), 0) +
            0.4 * smoothNoise(seed, streamId(TAG_NETFLOW_TREND, bi), t, DAY_MS) +
            NETFLOW_MOMENTUM * path.logReturn(bi, t - DAY_MS, t)
          const mvrv =
            p.mvrv *
            Math.pow(price / refPrice, MVRV_PRICE_ELASTICITY) *
            Math.exp(0.08 * smoothNoise(seed, streamId(TAG_MVRV, bi), t, 5 * DAY_MS))
          const cycle = 1 + ACTIVITY_AMPLITUDE * Math.cos((2 * Math.PI * ((hour % 24) - ACTIVITY_PEAK_HOUR)) / 24)
          const active =
            p.activeHourly * cycle * Math.exp(0.1 * gauss(hashKey(seed, streamId(TAG_ACTIVE, bi), hour), 0))
          const reserveCoins = Math.exp(0.04 * smoothNoise(seed, streamId(TAG_RESERVE, bi), t, 10 * DAY_MS))
          const metrics: readonly [string, number][] = [
            ['exchange_netflow_usd', Math.round(p.netflowUsd * flowZ * 100) / 100],
            ['mvrv', Math.round(Math.min(MAX_MVRV, Math.max(MIN_MVRV, mvrv)) * 1e4) / 1e4],
            ['active_addresses', Math.max(1, Math.round(active))],
            ['exchange_reserve_usd', Math.round(((p.reserveUsd * price) / refPrice) * reserveCoins * 100) / 100]
          ]
          for (const [metric, value] of metrics)
            sink.push({ kind: 'onchain_metric', ts: t, asset: p.asset, metric, value })
        }
      }
    }
  }
}
