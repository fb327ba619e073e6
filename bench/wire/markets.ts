/**
 * @module
 * The markets of the wire benchmark: every market the demo universe lists on Binance, Bybit and OKX
 * (ingest/sources/sim/universe.ts, ~520 USDT perpetuals under their venue spelling), each with a trade
 * weight (top bases trade densely) and the base's candle venue (the history endpoints' default: Binance,
 * then Bybit, then OKX), and the subscriptions of each bench subscriber.
 */
import { UNIVERSE } from '../../ingest/sources/sim/universe.js'
import { mulberry32 } from '../mulberry32.js'

export type WireVenue = 'binance' | 'bybit' | 'okx'
export const WIRE_VENUES: readonly WireVenue[] = ['binance', 'bybit', 'okx']

export interface WireMarket {
  readonly exchange: WireVenue
  /** venue spelling: BTCUSDT, BTC-USDT-SWAP */
  readonly symbol: string
  readonly base: string
  /** USD reference price */
  readonly refPrice: number
  /** relative share of the trade rate (top 10 bases: 8, then falling with rank) */
  readonly weight: number
}

export function wireMarkets(): WireMarket[] {
  const out: WireMarket[] = []
  UNIVERSE.markets.forEach((m, i) => {
    if (!(WIRE_VENUES as readonly string[]).includes(m.exchange)) return
    const rank = UNIVERSE.marketBase[i]!
    out.push({
      exchange: m.exchange as WireVenue,
      symbol: m.symbol,
      base: m.base,
      refPrice: m.refPrice,
      weight: rank < 10 ? 8 : Math.max(0.3, 20 / (rank + 10))
    })
  })
  return out
}

/** The venue whose market a base's `candles:<base>:1m` follows (Binance, then Bybit, then OKX). */
export function candleVenues(markets: readonly WireMarket[]): Map<string, WireVenue> {
  const out = new Map<string, WireVenue>()
  for (const v of WIRE_VENUES) for (const m of markets) if (m.exchange === v && !out.has(m.base)) out.set(m.base, v)
  return out
}

/**
 * Channels of each subscriber: TRADES_PER_SUB `trades:<base>` (every venue of the base) and one
 * `candles:<base>:1m`, bases drawn uniformly (fixed seed): every base has subscribers, and the frames each
 * one receives stay within what one client process reads on a shared 2-core machine.
 */
export function subscriptions(markets: readonly WireMarket[], subscribers: number, seed: number): string[][] {
  const bases = [...new Set(markets.map((m) => m.base))]
  const rnd = mulberry32(seed)
  const pick = (): string => bases[Math.floor(rnd() * bases.length)]!
  const out: string[][] = []
  for (let s = 0; s < subscribers; s++) {
    const trades = new Set<string>()
    while (trades.size < TRADES_PER_SUB) trades.add(pick())
    out.push([...[...trades].map((b) => `trades:${b}`), `candles:${pick()}:1m`])
  }
  return out
}

/** trades channels per subscriber */
const TRADES_PER_SUB = 2

/** prices cycle every PRICE_CYCLE trades of a market (more than any market sends in a run) */
const PRICE_CYCLE = 200_000
const PRICE_STEP = 1e-7

/**
 * A price unique to this trade among the market's trades of the run (10 significant digits); `seqOfPrice`
 * inverts it, so a forming candle's close names the trade that made it.
 */
export function priceOf(m: WireMarket, seq: number): string {
  return (m.refPrice * (1 + ((seq % PRICE_CYCLE) - PRICE_CYCLE / 2) * PRICE_STEP)).toPrecision(10)
}

/** The market's trade seq whose price is `price` (within the run). */
export function seqOfPrice(m: WireMarket, price: number): number {
  return Math.round((price / m.refPrice - 1) / PRICE_STEP) + PRICE_CYCLE / 2
}

/**
 * Trade ids as the local servers number them, so a receiver maps an id back to the market's trade seq
 * (seq = id - ID_BASE + 1): Binance aggTrade ids from 1000 (binance-server.ts), OKX trade ids from
 * 500000001 (okx-server.ts); Bybit ids are given by the sender, the seq itself.
 */
export const ID_BASE: Readonly<Record<WireVenue, number>> = { binance: 1_000, okx: 500_000_001, bybit: 1 }
