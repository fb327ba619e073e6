/**
 * @module
 * The confirmation model of GET /v1/confirm: one pure function from market context to advice. Every
 * sub-score is computed LONG-oriented; a short request negates each of them and the composite exactly, so
 * composite(short) === -composite(long). Formulas, weights and a worked example: docs/confirm.md.
 */

import { actionFor, confidenceFor, confirmationFor, scoreFor, sizeMultFor } from './decision.js'
import { derivativesScore } from './derivatives-score.js'
import { clamp, finite, negate, nonNegative, positive } from './math.js'
import { onchainScore } from './onchain-score.js'
import type { ConfirmInputs, ConfirmResult, Direction } from './types.js'
import { whaleScore } from './whale-score.js'

export type {
  Action,
  Confidence,
  ConfirmationLevel,
  ConfirmInputs,
  ConfirmResult,
  DerivativesEcho,
  Direction,
  SmartMoney
} from './types.js'
export { EMPTY_CONFIRM_INPUTS } from './types.js'
export { percentileRank } from './percentile.js'

/** derivatives lead: they price positioning right now; whales next; on-chain is the slowest-moving context */
export const COMPOSITE_DERIV_WEIGHT = 0.45
export const COMPOSITE_ONCHAIN_WEIGHT = 0.25
export const COMPOSITE_WHALE_WEIGHT = 0.3

/** the model's LONG-oriented view of one symbol; every number in [-1, 1] */
export interface LongView {
  readonly composite: number
  readonly deriv: number
  readonly onchain: number
  readonly whale: number
  /** derivatives, then on-chain, then whale reasons */
  readonly reasons: readonly string[]
}

/** long-oriented composite and sub-scores with all reasons */
export function longView(inputs: ConfirmInputs): LongView {
  const deriv = derivativesScore(inputs)
  const onchain = onchainScore(inputs)
  const whale = whaleScore(inputs)
  const composite = clamp(
    COMPOSITE_DERIV_WEIGHT * deriv.score +
      COMPOSITE_ONCHAIN_WEIGHT * onchain.score +
      COMPOSITE_WHALE_WEIGHT * whale.score,
    -1,
    1
  )
  return {
    composite,
    deriv: deriv.score,
    onchain: onchain.score,
    whale: whale.score,
    reasons: [...deriv.reasons, ...onchain.reasons, ...whale.reasons]
  }
}

/**
 * Confirmation of `direction` on `symbol` given `inputs`, evaluated at `nowMs` (epoch ms).
 * @throws RangeError when nowMs is not a finite epoch-ms time or direction is neither long nor short
 */
/** Inputs that carry a score term; `price_change_24h` and the funding history only qualify others. */
const SCORED_INPUTS = [
  'funding_rate',
  'long_short_ratio',
  'oi_change_24h',
  'exchange_netflow_usd_24h',
  'mvrv',
  'whale_net_flow_usd_24h',
  'whales_long',
  'whales_short'
] as const

/** True when no input that carries a score term is there (null, NaN and ±Infinity are missing). */
export function withoutData(inputs: ConfirmInputs): boolean {
  return SCORED_INPUTS.every((k) => finite(inputs[k]) === null)
}

/** The reason appended when every input is missing. */
export const NO_DATA_REASON = 'no input data at all: SKIP, nothing confirms either side'

/**
 * Every input missing: the composite is 0 (no view), but the verdict is SKIP with size 0 rather than the
 * REDUCE that composite 0 maps to: advice without any data must not size a trade.
 */
function blind(
  symbol: string,
  direction: Direction,
  inputs: ConfirmInputs,
  view: LongView,
  nowMs: number
): ConfirmResult {
  return {
    ts: Math.floor(nowMs / 1000),
    symbol,
    direction,
    composite: 0,
    confidence: 'MEDIUM',
    action: 'SKIP',
    size_mult: 0,
    deriv_score: 0,
    onchain_score: 0,
    whale_score: 0,
    reasons: [...view.reasons, NO_DATA_REASON],
    confirmation: 'NONE',
    score: 0.5,
    smart_money: { net_flow_usd: null, long_short_ratio: null, whales_long: null, whales_short: null },
    derivatives: { funding_rate: null, oi_change_24h: null },
    as_of: new Date(nowMs).toISOString()
  }
}

export function confirm(symbol: string, direction: Direction, inputs: ConfirmInputs, nowMs: number): ConfirmResult {
  if (!Number.isFinite(nowMs) || Math.abs(nowMs) > 8.64e15) throw new RangeError(`nowMs must be epoch ms, got ${nowMs}`)
  if (direction !== 'long' && direction !== 'short') {
    throw new RangeError(`direction must be 'long' or 'short', got ${String(direction)}`)
  }
  const view = longView(inputs)
  if (withoutData(inputs)) return blind(symbol, direction, inputs, view, nowMs)
  const orient = direction === 'long' ? (x: number) => (x === 0 ? 0 : x) : negate
  const composite = orient(view.composite)
  const subScores = [orient(view.deriv), orient(view.onchain), orient(view.whale)] as const
  return {
    ts: Math.floor(nowMs / 1000),
    symbol,
    direction,
    composite,
    confidence: confidenceFor(composite, subScores),
    action: actionFor(composite),
    size_mult: sizeMultFor(composite),
    deriv_score: subScores[0],
    onchain_score: subScores[1],
    whale_score: subScores[2],
    reasons: view.reasons,
    confirmation: confirmationFor(composite),
    score: scoreFor(composite),
    smart_money: {
      net_flow_usd: finite(inputs.whale_net_flow_usd_24h),
      long_short_ratio: positive(inputs.long_short_ratio),
      whales_long: nonNegative(inputs.whales_long),
      whales_short: nonNegative(inputs.whales_short)
    },
    derivatives: { funding_rate: finite(inputs.funding_rate), oi_change_24h: finite(inputs.oi_change_24h) },
    as_of: new Date(nowMs).toISOString()
  }
}
