/**
 * @module
 * Derivatives sub-score, LONG-oriented, in [-1, 1]: funding (contrarian), long/short account ratio
 * (contrarian) and open-interest momentum with price. A missing part contributes 0 (weights are not
 * renormalized, so less data means a weaker score). Non-increasing in funding rate, in its 30-day percentile
 * and in the long/short ratio: more crowded longs never help a long.
 */

import { lean, ordinal, pct, signedPct } from './format.js'
import { clamp, finite, positive } from './math.js'
import { percentileRank } from './percentile.js'
import type { ConfirmInputs, SubScore } from './types.js'

/** funding is compared as an 8h-equivalent rate: the interval of most perpetuals, so numbers read as usual */
export const FUNDING_REFERENCE_HOURS = 8
/** 0.01% per 8h is the default rate of Binance/Bybit/OKX when the premium is 0: no crowding either way */
export const FUNDING_NEUTRAL_8H = 0.0001
/** 0.05% per 8h above neutral (~55%/year paid by longs) squashes to tanh(1) = 0.76: clearly crowded */
export const FUNDING_SCALE_8H = 0.0005
/** level and 30-day percentile count equally: the level is comparable across symbols, the rank is not fooled by a symbol's usual level */
export const FUNDING_LEVEL_SHARE = 0.5
export const FUNDING_PERCENTILE_SHARE = 0.5
/** a 2:1 (or 1:2) account ratio squashes to tanh(1) = 0.76: log scale so 2:1 and 1:2 are mirror images */
export const LSR_SCALE = Math.LN2
/** +10% OI in 24h is a strong inflow of new positions for a major perpetual */
export const OI_SCALE = 0.1
/** a 5% price move in 24h is a clear move for BTC/ETH-class assets */
export const PRICE_SCALE = 0.05
/** falling OI means positions closing: the move is losing participation; counted at a quarter of rising OI */
export const OI_FALLING_SHARE = 0.25
/** weights inside the derivatives sub-score; they sum to 1 so no clamping is normally needed */
export const DERIV_FUNDING_WEIGHT = 0.5
export const DERIV_LSR_WEIGHT = 0.3
export const DERIV_OI_WEIGHT = 0.2

/** funding term and its reason, or null when there is no funding rate */
function fundingTerm(inputs: ConfirmInputs): { readonly term: number; readonly reason: string } | null {
  const rate = finite(inputs.funding_rate)
  if (rate === null) return null
  const interval = positive(inputs.funding_interval_hours)
  const rate8h = (rate * FUNDING_REFERENCE_HOURS) / (interval ?? FUNDING_REFERENCE_HOURS)
  const level = -Math.tanh((rate8h - FUNDING_NEUTRAL_8H) / FUNDING_SCALE_8H)
  const rank = percentileRank(rate, inputs.funding_history_30d ?? [])
  // percentile 100 = the highest funding of the month = longs most crowded → -1; 0 → +1; 50 → 0
  const term = rank === null ? level : FUNDING_LEVEL_SHARE * level + FUNDING_PERCENTILE_SHARE * (-(rank - 50) / 50)
  let head = `funding ${pct(rate8h, 3)} per 8h`
  if (interval === null) head += ' (interval unknown, 8h assumed)'
  else if (interval !== FUNDING_REFERENCE_HOURS)
    head = `funding ${pct(rate, 4)} per ${interval}h = ${pct(rate8h, 3)} per 8h`
  const where = rank === null ? 'no 30-day history' : `${ordinal(Math.round(rank))} percentile of 30 days`
  return { term, reason: `${head}, ${where}: ${crowding(term)}` }
}

function lsrTerm(inputs: ConfirmInputs): { readonly term: number; readonly reason: string } | null {
  const ratio = positive(inputs.long_short_ratio)
  if (ratio === null) return null
  const term = -Math.tanh(Math.log(ratio) / LSR_SCALE)
  return { term, reason: `long/short ratio ${ratio.toFixed(2)}: ${crowding(term)}` }
}

/** OI rising confirms the price direction; OI falling weakens it (small term against the price direction) */
function oiTerm(inputs: ConfirmInputs): { readonly term: number; readonly reason: string } | null {
  const oi = finite(inputs.oi_change_24h)
  const price = finite(inputs.price_change_24h)
  if (oi === null || price === null) return null
  const participation = Math.tanh(oi / OI_SCALE)
  const term = Math.tanh(price / PRICE_SCALE) * (oi >= 0 ? participation : OI_FALLING_SHARE * participation)
  const trend = price > 0 ? 'uptrend' : price < 0 ? 'downtrend' : 'flat price'
  const verdict =
    oi > 0 && price !== 0 ? `${trend} confirmed` : oi < 0 ? `positions closing: ${trend} weakening` : 'no OI signal'
  return { term, reason: `OI ${signedPct(oi)} with price ${signedPct(price)} in 24h: ${verdict}` }
}

/** label of a long-oriented crowding term: negative = longs crowded */
function crowding(term: number): string {
  return lean(term, 'longs crowded', 'neutral', 'shorts crowded')
}

export function derivativesScore(inputs: ConfirmInputs): SubScore {
  const oiMissingName = finite(inputs.oi_change_24h) === null ? 'OI' : 'price change'
  const parts = [
    { name: 'funding', missingName: 'funding', weight: DERIV_FUNDING_WEIGHT, value: fundingTerm(inputs) },
    { name: 'long/short', missingName: 'long/short', weight: DERIV_LSR_WEIGHT, value: lsrTerm(inputs) },
    { name: 'OI', missingName: oiMissingName, weight: DERIV_OI_WEIGHT, value: oiTerm(inputs) }
  ]
  let sum = 0
  const reasons: string[] = []
  for (const p of parts) {
    if (p.value === null) continue
    sum += p.weight * p.value.term
    reasons.push(p.value.reason)
  }
  const missing = parts.filter((p) => p.value === null).map((p) => p.missingName)
  const present = parts.filter((p) => p.value !== null).map((p) => p.name)
  if (present.length === 0) reasons.push('no derivatives data (funding, long/short, OI): derivatives score 0')
  else if (missing.length > 0) {
    reasons.push(`no ${missing.join(' or ')} data: derivatives score from ${present.join(' and ')} only`)
  }
  return { score: clamp(sum, -1, 1), reasons }
}
