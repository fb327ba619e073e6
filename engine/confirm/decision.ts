/**
 * @module
 * From a composite in [-1, 1] (for the requested side) to the published verdicts: action, size_mult,
 * confidence, confirmation bucket and score. Thresholds are inclusive on the side of the better verdict.
 */

import type { Action, Confidence, ConfirmationLevel } from './types.js'

/** composite at or above this supports the trade: a quarter of full conviction, past typical noise of one input */
export const CONFIRM_AT = 0.25
/** composite at or below this is context against the trade; between the two is "mixed" */
export const SKIP_AT = -0.15
/** size at the CONFIRM threshold: full size once context supports the trade */
export const CONFIRM_SIZE_MIN = 1
/** size at composite +1: the published maximum of size_mult */
export const CONFIRM_SIZE_MAX = 1.5
/** REDUCE sizes run linearly from this just above SKIP_AT ... */
export const REDUCE_SIZE_MIN = 0.25
/** ... to this just below CONFIRM_AT: always under CONFIRM_SIZE_MIN so size_mult never falls as composite rises */
export const REDUCE_SIZE_MAX = 0.75
/** |composite| at or above this, with sub-scores agreeing, is HIGH confidence and HIGH confirmation */
export const HIGH_AT = 0.5
/** at least this many of the 3 sub-scores must share the composite's sign for HIGH confidence */
export const HIGH_MIN_AGREEING = 2

export function actionFor(composite: number): Action {
  return composite >= CONFIRM_AT ? 'CONFIRM' : composite > SKIP_AT ? 'REDUCE' : 'SKIP'
}

/**
 * Non-decreasing in composite, in [0, 1.5]: 0 for SKIP; REDUCE linear 0.25 → 0.75 over (-0.15, 0.25);
 * CONFIRM linear 1.0 → 1.5 over [0.25, 1].
 */
export function sizeMultFor(composite: number): number {
  const action = actionFor(composite)
  if (action === 'SKIP') return 0
  if (action === 'REDUCE') {
    return REDUCE_SIZE_MIN + ((REDUCE_SIZE_MAX - REDUCE_SIZE_MIN) * (composite - SKIP_AT)) / (CONFIRM_AT - SKIP_AT)
  }
  const t = Math.min(1, (composite - CONFIRM_AT) / (1 - CONFIRM_AT))
  return CONFIRM_SIZE_MIN + (CONFIRM_SIZE_MAX - CONFIRM_SIZE_MIN) * t
}

/** HIGH when |composite| >= 0.5 and at least 2 of the 3 sub-scores have the composite's (non-zero) sign */
export function confidenceFor(composite: number, subScores: readonly number[]): Confidence {
  if (Math.abs(composite) < HIGH_AT) return 'MEDIUM'
  const sign = Math.sign(composite)
  const agreeing = subScores.filter((s) => Math.sign(s) === sign).length
  return agreeing >= HIGH_MIN_AGREEING ? 'HIGH' : 'MEDIUM'
}

/** HIGH >= 0.5 > MEDIUM >= 0.25 > LOW > 0 >= NONE */
export function confirmationFor(composite: number): ConfirmationLevel {
  return composite >= HIGH_AT ? 'HIGH' : composite >= CONFIRM_AT ? 'MEDIUM' : composite > 0 ? 'LOW' : 'NONE'
}

/** conviction for the requested side in [0, 1]: 0.5 = no view */
export function scoreFor(composite: number): number {
  return (composite + 1) / 2
}
