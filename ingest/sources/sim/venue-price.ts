/**
 * @module
 * Per-market prices: each perpetual trades at the base asset's path times a tiny constant basis
 * (|basis - 1| < 0.03%), and quotes prices and sizes on a venue-like grid (tick and lot decimals).
 */
import { hashKey, streamId, unit } from './hash-rng.js'
import type { SimContext } from './sim-context.js'

/** largest relative gap between a venue's price and the shared path: 0.03%, under the 0.05% budget */
const MAX_BASIS = 0.0003
/** significant digits of quoted prices (ETH 3512.34, DOGE 0.321234, BTC 97234) */
const PRICE_SIGNIFICANT_DIGITS = 6
/** a lot (size step) is worth at most this many USD, like venue minimum sizes (BTC 0.0001, ETH 0.001) */
const LOT_USD = 20
const TAG_BASIS = 20

/** 10^d, where d is the number of decimals for `significant` digits of `price` (d clamped to 0..12) */
export function priceScale(price: number): number {
  const d = PRICE_SIGNIFICANT_DIGITS - 1 - Math.floor(Math.log10(price))
  return Math.pow(10, d < 0 ? 0 : d > 12 ? 12 : d)
}

/** 10^d, where 10^-d is the size step for an asset priced `price` (d clamped to 0..8) */
export function lotScale(price: number): number {
  const d = -Math.floor(Math.log10(LOT_USD / price))
  return Math.pow(10, d < 0 ? 0 : d > 8 ? 8 : d)
}

/** `x` rounded to the grid 1/scale; scale = 10^d keeps decimal output clean (0.1, not 0.1000000001) */
export function roundTo(x: number, scale: number): number {
  return Math.round(x * scale) / scale
}

export class VenuePrices {
  readonly ctx: SimContext
  /** multiplicative basis of each market against the base path */
  readonly basis: Float64Array
  /** price grid of each market (priceScale of its refPrice): prices stay within ±40% of it */
  readonly priceScale: Float64Array
  /** size grid of each market (lotScale of its refPrice) */
  readonly lotScale: Float64Array

  constructor(ctx: SimContext) {
    this.ctx = ctx
    const n = ctx.universe.markets.length
    this.basis = new Float64Array(n)
    this.priceScale = new Float64Array(n)
    this.lotScale = new Float64Array(n)
    for (let mi = 0; mi < n; mi++) {
      const refPrice = ctx.universe.markets[mi]!.refPrice
      this.basis[mi] = 1 + MAX_BASIS * (2 * unit(hashKey(ctx.seed, streamId(TAG_BASIS, 0), mi), 0) - 1)
      this.priceScale[mi] = priceScale(refPrice)
      this.lotScale[mi] = lotScale(refPrice)
    }
  }

  /** mid price of market `mi` at `t`, USD (= USDT) */
  at(mi: number, t: number): number {
    return this.ctx.path.at(this.ctx.universe.marketBase[mi]!, t) * this.basis[mi]!
  }
}
