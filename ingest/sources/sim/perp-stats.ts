/**
 * @module
 * Funding, open interest and long-short readings of every perpetual, sampled at aligned times
 * (multiples of the cadence). Values are functions of (market, t) only, so backfill and live agree
 * wherever both sample the same instant:
 * - funding rate per interval: baseline 0.01%/8h (scaled to the interval), slow noise, a momentum term
 *   (rallies push funding up) and rare spikes up to ±0.2%, clamped to ±0.2%;
 * - open interest in coins: a per-asset level (BTC ~ $9B on binance) times slow noise; USD = coins x mark;
 * - long-short: long fraction 0.34..0.74 (ratio 0.5..2.9), one component per asset and one per venue.
 */
import { hashKey, smoothNoise, streamId, unit } from './hash-rng.js'
import type { RecordSink } from './record-sink.js'
import { roundTo, type VenuePrices } from './venue-price.js'
import { VENUE_OI_SHARE } from './universe.js'

export interface StatCadence {
  readonly fundingMs: number
  readonly oiMs: number
  readonly longShortMs: number
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
/** default funding per 8 h (interest component 0.01%) */
const FUNDING_BASELINE_8H = 0.0001
/** sd of the slowly varying premium part of funding, per interval */
const FUNDING_NOISE = 0.00006
/** funding gained per unit of 24 h log return: +5%/day gives +0.015% */
const FUNDING_MOMENTUM = 0.003
/** venues cap funding; extremes reach ±0.2% per interval */
const MAX_FUNDING = 0.002
/** chance per market-day of a funding spike (squeeze), and its width */
const FUNDING_SPIKE_PROBABILITY = 0.03
const FUNDING_SPIKE_WIDTH_MS = 1.5 * HOUR_MS
/** log-sd of open interest over days and over hours */
const OI_SLOW_LOG_SD = 0.25
const OI_FAST_LOG_SD = 0.06
/** long fraction = centre + amplitude x tanh(noise): 0.34..0.74, long_short_ratio 0.52..2.85 */
const LONG_CENTRE = 0.54
const LONG_AMPLITUDE = 0.2
const TAG_FUNDING = 40
const TAG_FUNDING_SPIKE = 41
const TAG_OI_SLOW = 42
const TAG_OI_FAST = 43
const TAG_LS_VENUE = 44
const TAG_LS_ASSET = 45

function fundingSpike(seed: number, mi: number, t: number): number {
  const day = Math.floor(t / DAY_MS)
  let sum = 0
  // neighbouring days' spikes too, so the rate stays continuous across midnight
  for (let d = day - 1; d <= day + 1; d++) {
    const key = hashKey(seed, streamId(TAG_FUNDING_SPIKE, mi), d)
    if (unit(key, 0) >= FUNDING_SPIKE_PROBABILITY) continue
    const size = (unit(key, 1) < 0.5 ? -1 : 1) * (0.0005 + 0.0015 * unit(key, 2))
    const x = (t - (d * DAY_MS + (3 + 18 * unit(key, 3)) * HOUR_MS)) / FUNDING_SPIKE_WIDTH_MS
    sum += size * Math.exp(-x * x)
  }
  return sum
}

/** funding rate per interval of market `mi` at `t`, decimal fraction */
function fundingRate(venues: VenuePrices, mi: number, t: number): number {
  const { seed, universe, path } = venues.ctx
  const bi = universe.marketBase[mi]!
  const intervalHours = universe.markets[mi]!.intervalHours
  const rate =
    (FUNDING_BASELINE_8H * intervalHours) / 8 +
    FUNDING_NOISE * smoothNoise(seed, streamId(TAG_FUNDING, mi), t, 8 * HOUR_MS) +
    FUNDING_MOMENTUM * path.logReturn(bi, t - DAY_MS, t) +
    fundingSpike(seed, mi, t)
  return roundTo(rate < -MAX_FUNDING ? -MAX_FUNDING : rate > MAX_FUNDING ? MAX_FUNDING : rate, 1e8)
}

function firstSample(lo: number, periodMs: number): number {
  return Math.ceil(lo / periodMs) * periodMs
}

export function emitPerpStats(
  venues: VenuePrices,
  lo: number,
  hi: number,
  cadence: StatCadence,
  sink: RecordSink
): void {
  const { seed, universe, path } = venues.ctx
  for (let mi = 0; mi < universe.markets.length; mi++) {
    const m = universe.markets[mi]!
    const bi = universe.marketBase[mi]!
    const asset = universe.bases[bi]!
    const basis = venues.basis[mi]!
    const pScale = venues.priceScale[mi]!
    const intervalMs = m.intervalHours * HOUR_MS
    for (let t = firstSample(lo, cadence.fundingMs); t < hi; t += cadence.fundingMs) {
      const index = path.at(bi, t)
      const rate = fundingRate(venues, mi, t)
      sink.push({
        kind: 'funding',
        ts: t,
        exchange: m.exchange,
        symbol: m.symbol,
        base: m.base,
        funding_rate: rate,
        interval_hours: m.intervalHours,
        next_funding_ts: (Math.floor(t / intervalMs) + 1) * intervalMs,
        // the premium part of funding shows as mark above index
        mark_price: roundTo(index * basis * (1 + 0.5 * rate), pScale),
        index_price: roundTo(index, pScale)
      })
    }
    const oiCoins = (asset.oiUsd * VENUE_OI_SHARE[universe.marketVenue[mi]!]!) / asset.refPrice
    const qScale = venues.lotScale[mi]!
    for (let t = firstSample(lo, cadence.oiMs); t < hi; t += cadence.oiMs) {
      const slow = OI_SLOW_LOG_SD * smoothNoise(seed, streamId(TAG_OI_SLOW, mi), t, 3 * DAY_MS)
      const fast = OI_FAST_LOG_SD * smoothNoise(seed, streamId(TAG_OI_FAST, mi), t, 4 * HOUR_MS)
      const oiBase = Math.max(1, Math.round(oiCoins * Math.exp(slow + fast) * qScale)) / qScale
      sink.push({
        kind: 'open_interest',
        ts: t,
        exchange: m.exchange,
        symbol: m.symbol,
        base: m.base,
        oi_base: oiBase,
        oi_usd: roundTo(oiBase * path.at(bi, t) * basis, 100)
      })
    }
    for (let t = firstSample(lo, cadence.longShortMs); t < hi; t += cadence.longShortMs) {
      const x =
        0.9 * smoothNoise(seed, streamId(TAG_LS_VENUE, mi), t, 12 * HOUR_MS) +
        0.5 * smoothNoise(seed, streamId(TAG_LS_ASSET, bi), t, 3 * DAY_MS)
      const longAccount = roundTo(LONG_CENTRE + LONG_AMPLITUDE * Math.tanh(x), 1e4)
      const shortAccount = roundTo(1 - longAccount, 1e4)
      sink.push({
        kind: 'long_short',
        ts: t,
        exchange: m.exchange,
        symbol: m.symbol,
        base: m.base,
        long_short_ratio: longAccount / shortAccount,
        long_account: longAccount,
        short_account: shortAccount
      })
    }
  }
}
