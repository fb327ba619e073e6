/**
 * @module
 * Whale sub-score, LONG-oriented, in [-1, 1]: USD net accumulation of tracked whale wallets and the balance
 * of wallets accumulating vs distributing (a consensus measure that one huge wallet cannot dominate).
 * A missing part contributes 0.
 */

import { lean, usd } from './format.js'
import { clamp, finite, nonNegative } from './math.js'
import type { ConfirmInputs, SubScore } from './types.js'

/** $50M of whale net accumulation in 24h squashes to tanh(1) = 0.76: several large wallets moving together */
export const WHALE_FLOW_SCALE_USD = 50_000_000
/** dollar flow weighs more than the head count, but the count keeps one wallet from deciding alone */
export const WHALE_FLOW_WEIGHT = 0.6
export const WHALE_BALANCE_WEIGHT = 0.4

function flowTerm(inputs: ConfirmInputs): { readonly term: number; readonly text: string } | null {
  const flow = finite(inputs.whale_net_flow_usd_24h)
  if (flow === null) return null
  const term = Math.tanh(flow / WHALE_FLOW_SCALE_USD)
  return { term, text: flow >= 0 ? `whales net accumulated ${usd(flow)}` : `whales net distributed ${usd(flow)}` }
}

/** (long − short) / (long + short) in [-1, 1]; null when both counts are 0 or either is missing */
function balanceTerm(inputs: ConfirmInputs): { readonly term: number; readonly text: string } | null {
  const long = nonNegative(inputs.whales_long)
  const short = nonNegative(inputs.whales_short)
  if (long === null || short === null || long + short === 0) return null
  return { term: (long - short) / (long + short), text: `${long} long vs ${short} short` }
}

export function whaleScore(inputs: ConfirmInputs): SubScore {
  const flow = flowTerm(inputs)
  const balance = balanceTerm(inputs)
  if (flow === null && balance === null) {
    return { score: 0, reasons: ['no whale data (net flow, wallet counts): whale score 0'] }
  }
  const score = clamp(
    (flow === null ? 0 : WHALE_FLOW_WEIGHT * flow.term) + (balance === null ? 0 : WHALE_BALANCE_WEIGHT * balance.term),
    -1,
    1
  )
  const label = lean(score, 'whales distributing', 'whales mixed', 'whales accumulating')
  const texts = [flow?.text ?? 'no whale flow data', balance?.text ?? 'no whale wallet counts']
  return { score, reasons: [`${texts.join('; ')}: ${label}`] }
}
