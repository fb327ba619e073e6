/**
 * @module
 * The simulated universe: base assets with their price dynamics, and the perpetual markets listed on each
 * perpetual venue of the catalog with a demo listing probability (catalog/venues.ts), named as there
 * (`BTCUSDT`, `BTC-USDT-SWAP`). The universe does not depend on the seed (a demo shows the same symbols
 * whatever the seed); only the data generated over it does.
 */
import { PERP_VENUE_IDS, usdtPerpSymbol, venueOf } from '../../../catalog/venues.js'
import type { Exchange } from '../../../engine/records/types.js'
import { BASE_LISTINGS, TOP_BASE_COUNT } from './base-assets.js'
import { hashKey, mixSeed, streamId, unit } from './hash-rng.js'

export interface PerpMarket {
  readonly exchange: Exchange
  readonly symbol: string
  readonly base: string
  readonly quote: 'USDT'
  readonly intervalHours: 1 | 4 | 8
  /** reference price in USD */
  readonly refPrice: number
}

export interface BaseAsset {
  readonly ticker: string
  /** reference price, USD */
  readonly refPrice: number
  /** 0 = BTC; lower rank = more liquid */
  readonly rank: number
  readonly isTop: boolean
  /** standard deviation of daily log returns (0.025 = 2.5%/day) */
  readonly dailyVol: number
  /** correlation of the asset's shocks with the market factor (BTC is the market: 1) */
  readonly marketCorr: number
  /** mean-reversion time of the log price towards refPrice, days */
  readonly reversionDays: number
  /** open interest on binance at refPrice, USD; other venues hold a share of it */
  readonly oiUsd: number
}

/** fixed hash seed of the universe, independent of the data seed so symbols are stable across seeds */
const UNIVERSE_SEED = mixSeed(0x71de)
const STREAM_LISTING = 1
const STREAM_INTERVAL = 2
const STREAM_DYNAMICS = 3
/** assets this high in rank are listed on every venue (all majors are) */
const LISTED_EVERYWHERE_RANK = 60
/** share of markets settling every 1 h and every 4 h; the rest settle every 8 h (venue default) */
const ONE_HOUR_SHARE = 0.05
const FOUR_HOUR_SHARE = 0.2
/** open interest of rank-0..9 assets on binance, USD (BTC ~9B ... SUI ~0.5B) */
const TOP_OI_USD = [9e9, 5e9, 1.5e9, 1.2e9, 0.5e9, 0.8e9, 0.3e9, 0.25e9, 0.3e9, 0.5e9] as const
/** open interest of rank-10 assets, USD; lower ranks fall off as rank^-1.3 (rank 190 ~ $5M) */
const TAIL_OI_USD = 2.5e8

/**
 * the demo's venues: the perpetual venues whose catalog entry gives a `demoListingProbability`, in the
 * default venue order (a venue without one is not in the demo, and the demo's size does not change with it)
 */
export const VENUES: readonly PerpMarket['exchange'][] = PERP_VENUE_IDS.filter(
  (v) => venueOf(v).demoListingProbability !== undefined
)
/** listing probability of the other assets per venue (the catalog's `demoListingProbability`) */
const LISTING_PROBABILITY: readonly number[] = VENUES.map((v) => venueOf(v).demoListingProbability!)
/** open interest held by each venue relative to the first (the catalog's `demoOiShare`), by venue index */
export const VENUE_OI_SHARE: readonly number[] = VENUES.map((v) => venueOf(v).demoOiShare ?? 1)

function dynamicsOf(rank: number): Pick<BaseAsset, 'dailyVol' | 'marketCorr' | 'reversionDays' | 'oiUsd'> {
  const key = hashKey(UNIVERSE_SEED, STREAM_DYNAMICS, rank)
  if (rank === 0) return { dailyVol: 0.025, marketCorr: 1, reversionDays: 30, oiUsd: TOP_OI_USD[0] }
  if (rank === 1) return { dailyVol: 0.032, marketCorr: 0.85, reversionDays: 30, oiUsd: TOP_OI_USD[1] }
  const isTop = rank < TOP_BASE_COUNT
  return {
    dailyVol: isTop ? 0.04 + 0.01 * unit(key, 0) : 0.05 + 0.025 * unit(key, 0),
    marketCorr: 0.55 + 0.2 * unit(key, 1),
    reversionDays: 20,
    oiUsd: isTop ? TOP_OI_USD[rank]! : TAIL_OI_USD * Math.pow(rank / TOP_BASE_COUNT, -1.3) * (0.6 + 0.8 * unit(key, 2))
  }
}

function intervalOf(venueIndex: number, rank: number): 1 | 4 | 8 {
  if (rank < 2) return 8
  const u = unit(hashKey(UNIVERSE_SEED, streamId(STREAM_INTERVAL, venueIndex), rank), 0)
  return u < ONE_HOUR_SHARE ? 1 : u < ONE_HOUR_SHARE + FOUR_HOUR_SHARE ? 4 : 8
}

function isListed(venueIndex: number, rank: number): boolean {
  if (rank < LISTED_EVERYWHERE_RANK) return true
  return unit(hashKey(UNIVERSE_SEED, streamId(STREAM_LISTING, venueIndex), rank), 0) < LISTING_PROBABILITY[venueIndex]!
}

export function symbolOf(exchange: PerpMarket['exchange'], base: string): string {
  return usdtPerpSymbol(exchange, base)
}

export interface Universe {
  readonly bases: readonly BaseAsset[]
  readonly baseIndex: ReadonlyMap<string, number>
  /** markets ordered by venue, then rank */
  readonly markets: readonly PerpMarket[]
  /** base index of each market */
  readonly marketBase: Int32Array
  /** venue index (into VENUES) of each market */
  readonly marketVenue: Int32Array
}

function buildUniverse(): Universe {
  const bases: BaseAsset[] = BASE_LISTINGS.map((b, rank) =>
    Object.freeze({ ticker: b.ticker, refPrice: b.refPrice, rank, isTop: rank < TOP_BASE_COUNT, ...dynamicsOf(rank) })
  )
  const markets: PerpMarket[] = []
  const marketBase: number[] = []
  const marketVenue: number[] = []
  VENUES.forEach((exchange, v) => {
    for (const b of bases) {
      if (!isListed(v, b.rank)) continue
      const symbol = symbolOf(exchange, b.ticker)
      const intervalHours = intervalOf(v, b.rank)
      markets.push(
        Object.freeze({ exchange, symbol, base: b.ticker, quote: 'USDT', intervalHours, refPrice: b.refPrice })
      )
      marketBase.push(b.rank)
      marketVenue.push(v)
    }
  })
  return {
    bases: Object.freeze(bases),
    baseIndex: new Map(bases.map((b) => [b.ticker, b.rank])),
    markets: Object.freeze(markets),
    marketBase: Int32Array.from(marketBase),
    marketVenue: Int32Array.from(marketVenue)
  }
}

/** the one universe (pure data, built once at import) */
export const UNIVERSE: Universe = buildUniverse()

/**
 * The universe with only its `count` most liquid perpetual markets (lowest base rank first, venues in
 * catalog order at equal rank), kept in the universe's order; every base asset stays (the options chain,
 * whale flows and on-chain metrics do not change). `count` at or above the market count: the universe itself.
 */
export function limitMarkets(universe: Universe, count: number): Universe {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, got ${count}`)
  if (count >= universe.markets.length) return universe
  const byLiquidity = universe.markets
    .map((_, i) => i)
    .sort(
      (a, b) => universe.marketBase[a]! - universe.marketBase[b]! || universe.marketVenue[a]! - universe.marketVenue[b]!
    )
  const kept = byLiquidity.slice(0, count).sort((a, b) => a - b)
  return {
    bases: universe.bases,
    baseIndex: universe.baseIndex,
    markets: Object.freeze(kept.map((i) => universe.markets[i]!)),
    marketBase: Int32Array.from(kept, (i) => universe.marketBase[i]!),
    marketVenue: Int32Array.from(kept, (i) => universe.marketVenue[i]!)
  }
}
