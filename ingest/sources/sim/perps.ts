/**
 * @module
 * Perpetual-futures records of the simulated market: trades (here), funding / open interest / long-short
 * (`perp-stats.ts`) and liquidations (`liquidations.ts`), with the record densities of each mode.
 * Trades: one per slot per market at a hashed time inside the slot; taker side leans with the last
 * 5 minutes' move; USD size log-normal-like from $100 to $500k. Backfill volume for 30 days:
 * trades ~3.3M, funding + open interest + long-short ~1.1M, liquidations ~0.15M.
 */
import { hashKey, logisticZ, streamId, unit } from './hash-rng.js'
import { emitLiquidations } from './liquidations.js'
import { emitPerpStats, type StatCadence } from './perp-stats.js'
import type { RecordSink } from './record-sink.js'
import type { Emitter, SimContext, SimMode } from './sim-context.js'
import { roundTo, VenuePrices } from './venue-price.js'

/** backfill, top-10 bases: 2 trades per minute per market, dense enough for minute candles */
export const BACKFILL_TOP_TRADE_SLOT_MS = 30_000
/** backfill, other bases: 1 trade per 30 minutes per market, so 30 days of demo history backfill within 60 s */
export const BACKFILL_TRADE_SLOT_MS = 1_800_000
/** live, top-10 bases: ~1 trade per second per market, a visibly moving tape */
export const LIVE_TOP_TRADE_SLOT_MS = 1_000
/** live, other bases: 1 trade per 20 s per market, so a live second stays ~60 trades */
export const LIVE_TRADE_SLOT_MS = 20_000
/** backfill: funding, open interest and long-short once per hour per market (the charts' resolution) */
export const BACKFILL_STATS_MS = 3_600_000
/** live: funding and open interest once per minute per market, like a polling collector */
export const LIVE_FUNDING_OI_MS = 60_000
/** live: long-short every 5 minutes, the venues' finest published period */
export const LIVE_LONG_SHORT_MS = 300_000

/** USD size bounds of one trade */
const MIN_TRADE_USD = 100
const MAX_TRADE_USD = 500_000
/** median trade size, USD: top-10 books are deeper */
const TOP_MEDIAN_TRADE_USD = 4_000
const MEDIAN_TRADE_USD = 1_200
/** log-sd of trade size (logistic, fat-tailed): $4k median reaches the $500k cap a few times a day */
const TRADE_SIZE_LOG_SD = 1.6
/** trade prices scatter around the mid by up to ±0.01% (half a spread) */
const TRADE_PRICE_NOISE = 0.0001
/** the taker side leans toward the last move over this window */
const MOMENTUM_MS = 300_000
/** at most 0.5 ± this chance of a buy: a strong up-move gives ~65% buys */
const MAX_SIDE_TILT = 0.15
const TAG_TRADE_BACKFILL = 30
const TAG_TRADE_LIVE = 31

const BACKFILL_STATS: StatCadence = {
  fundingMs: BACKFILL_STATS_MS,
  oiMs: BACKFILL_STATS_MS,
  longShortMs: BACKFILL_STATS_MS
}
const LIVE_STATS: StatCadence = {
  fundingMs: LIVE_FUNDING_OI_MS,
  oiMs: LIVE_FUNDING_OI_MS,
  longShortMs: LIVE_LONG_SHORT_MS
}

function emitTrades(venues: VenuePrices, lo: number, hi: number, mode: SimMode, sink: RecordSink): void {
  const { seed, universe, path } = venues.ctx
  const live = mode === 'live'
  for (let mi = 0; mi < universe.markets.length; mi++) {
    const bi = universe.marketBase[mi]!
    const asset = universe.bases[bi]!
    const slotMs = live
      ? asset.isTop
        ? LIVE_TOP_TRADE_SLOT_MS
        : LIVE_TRADE_SLOT_MS
      : asset.isTop
        ? BACKFILL_TOP_TRADE_SLOT_MS
        : BACKFILL_TRADE_SLOT_MS
    const first = Math.floor(lo / slotMs)
    const last = Math.ceil(hi / slotMs) - 1
    if (last < first) continue
    const m = universe.markets[mi]!
    const basis = venues.basis[mi]!
    const pScale = venues.priceScale[mi]!
    const qScale = venues.lotScale[mi]!
    const medianUsd = asset.isTop ? TOP_MEDIAN_TRADE_USD : MEDIAN_TRADE_USD
    const momentumSd = asset.dailyVol * Math.sqrt(MOMENTUM_MS / 86_400_000)
    const stream = streamId(live ? TAG_TRADE_LIVE : TAG_TRADE_BACKFILL, mi)
    for (let s = first; s <= last; s++) {
      const key = hashKey(seed, stream, s)
      const ts = s * slotMs + Math.floor(unit(key, 0) * slotMs)
      if (ts < lo || ts >= hi) continue
      const mid = path.at(bi, ts)
      const move = Math.log(mid / path.at(bi, ts - MOMENTUM_MS)) / momentumSd
      // softsign tilt: bounded by MAX_SIDE_TILT like tanh, without the transcendental call
      const buy = unit(key, 1) < 0.5 + (MAX_SIDE_TILT * move) / (1 + Math.abs(move))
      const price = roundTo(mid * basis * (1 + (2 * unit(key, 2) - 1) * TRADE_PRICE_NOISE), pScale)
      const usd = medianUsd * Math.exp(TRADE_SIZE_LOG_SD * logisticZ(unit(key, 3)))
      const clamped = usd < MIN_TRADE_USD ? MIN_TRADE_USD : usd > MAX_TRADE_USD ? MAX_TRADE_USD : usd
      sink.push({
        kind: 'trade',
        ts,
        exchange: m.exchange,
        market: 'perp',
        symbol: m.symbol,
        base: m.base,
        quote: m.quote,
        side: buy ? 'buy' : 'sell',
        price,
        qty: Math.max(1, Math.round((clamped / price) * qScale)) / qScale,
        // the slot index: sequential per market like venue ids, below 2^32 (a fast String), and unique
        // across modes in 2000..2098: top backfill < 1.4e8 < 9.4e8 <= top live; others 6.8e6 < 4.7e7
        trade_id: String(s)
      })
    }
  }
}

/** all perpetual-futures records */
export function createPerps(ctx: SimContext): Emitter {
  const venues = new VenuePrices(ctx)
  return {
    emit(lo, hi, mode, sink) {
      emitTrades(venues, lo, hi, mode, sink)
      emitPerpStats(venues, lo, hi, mode === 'live' ? LIVE_STATS : BACKFILL_STATS, sink)
      emitLiquidations(venues, lo, hi, sink)
    }
  }
}
