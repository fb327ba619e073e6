/**
 * @module
 * Forced liquidations: per market and 5-minute slot, a Poisson count whose mean grows with the cube of
 * the slot's price move in standard deviations, so liquidations are rare in calm markets and cluster
 * (across assets too, via the market factor) when price moves fast. A down-move liquidates mostly longs
 * (`sell` orders below the mid), an up-move mostly shorts. The same in both modes: events, not samples.
 */
import { hashKey, logisticZ, streamId, unit } from './hash-rng.js'
import type { RecordSink } from './record-sink.js'
import { roundTo, type VenuePrices } from './venue-price.js'

/** slot over which the move is measured and events are placed */
const LIQ_SLOT_MS = 300_000
/** mean liquidations per market per day in an average market: top bases ~100, others ~6 */
const TOP_LIQ_PER_DAY = 100
const LIQ_PER_DAY = 6
/** E|z|^3 for a standard normal: normalises the cubic intensity so the average rate is as above */
const MEAN_ABS_CUBE = 1.6
/** share of the intensity that does not depend on the move (background liquidations) */
const BACKGROUND_SHARE = 0.2
/** cap on events per market-slot, so a 10-sigma candle stays bounded */
const MAX_LIQ_PER_SLOT = 40
/** chance that a liquidation is on the side the move squeezes */
const WITH_MOVE_PROBABILITY = 0.85
/** liquidation orders fill up to this fraction through the mid */
const MAX_SLIPPAGE = 0.0015
/** median liquidation size, USD, and its log-sd (logistic) */
const TOP_MEDIAN_LIQ_USD = 6_000
const MEDIAN_LIQ_USD = 1_500
const LIQ_SIZE_LOG_SD = 1.3
const MIN_LIQ_USD = 50
const MAX_LIQ_USD = 3_000_000
const TAG_LIQUIDATION = 50

export function emitLiquidations(venues: VenuePrices, lo: number, hi: number, sink: RecordSink): void {
  const { seed, universe, path } = venues.ctx
  const first = Math.floor(lo / LIQ_SLOT_MS)
  const last = Math.ceil(hi / LIQ_SLOT_MS) - 1
  const slotsPerDay = 86_400_000 / LIQ_SLOT_MS
  for (let mi = 0; mi < universe.markets.length; mi++) {
    const m = universe.markets[mi]!
    const bi = universe.marketBase[mi]!
    const asset = universe.bases[bi]!
    const basis = venues.basis[mi]!
    const pScale = venues.priceScale[mi]!
    const qScale = venues.lotScale[mi]!
    const meanRate = (asset.isTop ? TOP_LIQ_PER_DAY : LIQ_PER_DAY) / slotsPerDay
    const medianUsd = asset.isTop ? TOP_MEDIAN_LIQ_USD : MEDIAN_LIQ_USD
    const slotSd = asset.dailyVol * Math.sqrt(1 / slotsPerDay)
    const stream = streamId(TAG_LIQUIDATION, mi)
    for (let s = first; s <= last; s++) {
      const start = s * LIQ_SLOT_MS
      const move = path.logReturn(bi, start, start + LIQ_SLOT_MS) / slotSd
      const absMove = Math.abs(move)
      const lambda =
        meanRate * (BACKGROUND_SHARE + ((1 - BACKGROUND_SHARE) * absMove * absMove * absMove) / MEAN_ABS_CUBE)
      const key = hashKey(seed, stream, s)
      // Poisson count by inverting the CDF with one uniform
      const u = unit(key, 0)
      let count = 0
      let p = Math.exp(-lambda)
      let cdf = p
      while (u > cdf && count < MAX_LIQ_PER_SLOT) {
        count++
        p *= lambda / count
        cdf += p
      }
      for (let j = 0; j < count; j++) {
        const ts = start + Math.floor(unit(key, 1 + 4 * j) * LIQ_SLOT_MS)
        if (ts < lo || ts >= hi) continue
        const withMove = unit(key, 2 + 4 * j) < WITH_MOVE_PROBABILITY
        const sell = move < 0 ? withMove : !withMove
        const slip = MAX_SLIPPAGE * unit(key, 3 + 4 * j)
        const price = roundTo(path.at(bi, ts) * basis * (sell ? 1 - slip : 1 + slip), pScale)
        const usd = medianUsd * Math.exp(LIQ_SIZE_LOG_SD * logisticZ(unit(key, 4 + 4 * j)))
        const clamped = usd < MIN_LIQ_USD ? MIN_LIQ_USD : usd > MAX_LIQ_USD ? MAX_LIQ_USD : usd
        sink.push({
          kind: 'liquidation',
          ts,
          exchange: m.exchange,
          symbol: m.symbol,
          base: m.base,
          side: sell ? 'sell' : 'buy',
          price,
          qty: Math.max(1, Math.round((clamped / price) * qScale)) / qScale
        })
      }
    }
  }
}
