/**
 * @module
 * On-chain sub-score, LONG-oriented, in [-1, 1]: exchange net flow (coins moving to exchanges are coins
 * about to be sold) and MVRV valuation (market value over realized value). A missing part contributes 0.
 */

import { lean, usd } from './format.js'
import { clamp, finite, positive } from './math.js'
import type { ConfirmInputs, SubScore } from './types.js'

/** $200M of net inflow in 24h squashes to -tanh(1) = -0.76: a large day for BTC, huge for anything smaller */
export const NETFLOW_SCALE_USD = 200_000_000
/** MVRV above 3 has marked overheated markets (2013, 2017, 2021 tops); bearish from here */
export const MVRV_OVERHEATED = 3
/** MVRV 4 is where past cycle tops peaked: the bearish term reaches -1 there */
export const MVRV_FULL_BEAR = 4
/** MVRV below 1 means the market trades under its aggregate cost basis: bullish from here */
export const MVRV_UNDERVALUED = 1
/** MVRV 0.7 is about where past cycle bottoms bottomed: the bullish term reaches +1 there */
export const MVRV_FULL_BULL = 0.7
/** flows are about the next days, valuation about the cycle: flows weigh more for a trade confirmation */
export const ONCHAIN_NETFLOW_WEIGHT = 0.6
export const ONCHAIN_MVRV_WEIGHT = 0.4

function netflowTerm(inputs: ConfirmInputs): { readonly term: number; readonly reason: string } | null {
  const flow = finite(inputs.exchange_netflow_usd_24h)
  if (flow === null) return null
  const term = -Math.tanh(flow / NETFLOW_SCALE_USD)
  const what = flow >= 0 ? `exchange net inflow ${usd(flow)}` : `exchange net outflow ${usd(flow)}`
  return { term, reason: `${what} in 24h: ${lean(term, 'sell pressure', 'neutral', 'coins leaving exchanges')}` }
}

/** 0 between 1 and 3; linear to +1 at 0.7 and to -1 at 4; continuous and non-increasing in MVRV */
export function mvrvTerm(mvrv: number): number {
  if (mvrv > MVRV_OVERHEATED) return -clamp((mvrv - MVRV_OVERHEATED) / (MVRV_FULL_BEAR - MVRV_OVERHEATED), 0, 1)
  if (mvrv < MVRV_UNDERVALUED) return clamp((MVRV_UNDERVALUED - mvrv) / (MVRV_UNDERVALUED - MVRV_FULL_BULL), 0, 1)
  return 0
}

function mvrvPart(inputs: ConfirmInputs): { readonly term: number; readonly reason: string } | null {
  const mvrv = positive(inputs.mvrv)
  if (mvrv === null) return null
  const term = mvrvTerm(mvrv)
  const label = mvrv > MVRV_OVERHEATED ? 'overheated' : mvrv < MVRV_UNDERVALUED ? 'undervalued' : 'neutral'
  return { term, reason: `MVRV ${mvrv.toFixed(2)}: ${label}` }
}

export function onchainScore(inputs: ConfirmInputs): SubScore {
  const flow = netflowTerm(inputs)
  const mvrv = mvrvPart(inputs)
  let sum = 0
  const reasons: string[] = []
  if (flow !== null) {
    sum += ONCHAIN_NETFLOW_WEIGHT * flow.term
    reasons.push(flow.reason)
  }
  if (mvrv !== null) {
    sum += ONCHAIN_MVRV_WEIGHT * mvrv.term
    reasons.push(mvrv.reason)
  }
  if (flow === null && mvrv === null) reasons.push('no on-chain data (exchange net flow, MVRV): on-chain score 0')
  else if (flow === null) reasons.push('no exchange net flow data: on-chain score from MVRV only')
  else if (mvrv === null) reasons.push('no MVRV data: on-chain score from exchange net flow only')
  return { score: clamp(sum, -1, 1), reasons }
}
