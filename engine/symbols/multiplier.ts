/**
 * @module
 * The multiplier names of low-priced coins, read as the plain coin: `1000PEPE` is 1,000 PEPE (Binance's
 * prefix form, Bybit too), `1MBABYDOGE` 1,000,000 BABYDOGE, `SHIB1000` 1,000 SHIB (Bybit's suffix form).
 * One rule for the normalizers (prices and sizes converted to the coin), the importers and the symbol
 * resolver (`1000PEPEUSDT` names PEPE). Pure.
 */

/** A coin and how many of it one unit of the written name is. */
export interface ScaledCoin {
  /** the plain coin, e.g. `PEPE` */
  readonly base: string
  /** coins per unit of the written name: 1000 for `1000PEPE`, else 1 */
  readonly multiplier: number
}

/** Prefixed multipliers: 1000, 10000, 1000000 or 1M ("1MBABYDOGE"); `1INCH` is a real coin. */
const SCALED_BASE = /^(1000+|1M)([A-Z][A-Z0-9]*)$/
/** `SHIB1000`: a multiplier after the coin. Only powers of ten from 1000 count; letters must come first. */
const SUFFIX_SCALED = /^([A-Z]{2,})(1000+)$/

/** Splits a base asset like `1000PEPE` into the coin and its multiplier (the prefix form only). */
export function scaledBase(baseAsset: string): ScaledCoin {
  const m = SCALED_BASE.exec(baseAsset)
  if (!m) return { base: baseAsset, multiplier: 1 }
  return { base: m[2]!, multiplier: m[1] === '1M' ? 1_000_000 : Number(m[1]) }
}

/** The plain coin and multiplier of a written base, prefix form (`1000PEPE`) or suffix form (`SHIB1000`). */
export function multiplierBase(written: string): ScaledCoin {
  const prefixed = scaledBase(written)
  if (prefixed.multiplier !== 1) return prefixed
  const m = SUFFIX_SCALED.exec(written)
  return m ? { base: m[1]!, multiplier: Number(m[2]) } : prefixed
}
