/**
 * @module
 * The walk-forward evaluation's grouping (docs/confirm.md, "Evaluation"): each step's confirm answer
 * (action and confidence as answered then) beside the forward returns of the direction; per group of
 * action and confidence, and for the always-confirm baseline (every step), the summary of each horizon.
 * Pure: the same steps in the same order give the same report.
 */
import type { Action, Confidence } from '../confirm/types.js'
import type { NoReturn } from './forward-returns.js'
import { summarize, type ReturnSummary } from './stats.js'

/** Groups in the order they are reported. */
export const ACTIONS: readonly Action[] = ['CONFIRM', 'REDUCE', 'SKIP']
export const CONFIDENCES: readonly Confidence[] = ['HIGH', 'MEDIUM']

/** One evaluated step: the answer at the step and, per horizon (in the report's order), its forward return. */
export interface EvaluatedStep {
  readonly action: Action
  readonly confidence: Confidence
  readonly returns: readonly (number | NoReturn)[]
}

/** What a group reports at one horizon: the summary, and the steps left out with why. */
export interface HorizonSummary extends ReturnSummary {
  /** steps whose horizon reaches past the newest stored candle */
  readonly beyond_data: number
  /** steps whose entry or exit candle is missing (no trades in it) */
  readonly no_price: number
}

export interface GroupReport {
  readonly action: Action | 'ALWAYS_CONFIRM'
  readonly confidence: Confidence | null
  /** answers in the group (steps, whether or not their returns are known) */
  readonly answers: number
  /** keyed by horizon name, in the request's order */
  readonly horizons: Readonly<Record<string, HorizonSummary>>
}

export interface EvaluationReport {
  /** every action and confidence pair, in ACTIONS then CONFIDENCES order, including empty ones */
  readonly groups: readonly GroupReport[]
  /** every step counted as if confirmed: what the direction returned unconditionally */
  readonly baseline: GroupReport
}

function horizonsOf(steps: readonly EvaluatedStep[], horizons: readonly string[]): Record<string, HorizonSummary> {
  const out: Record<string, HorizonSummary> = {}
  horizons.forEach((h, i) => {
    const values: number[] = []
    let beyond = 0
    let noPrice = 0
    for (const s of steps) {
      const r = s.returns[i]
      if (typeof r === 'number') values.push(r)
      else if (r === 'beyond') beyond++
      else noPrice++
    }
    out[h] = { ...summarize(values), beyond_data: beyond, no_price: noPrice }
  })
  return out
}

export function evaluationReport(steps: readonly EvaluatedStep[], horizons: readonly string[]): EvaluationReport {
  const groups: GroupReport[] = []
  for (const action of ACTIONS) {
    for (const confidence of CONFIDENCES) {
      const members = steps.filter((s) => s.action === action && s.confidence === confidence)
      groups.push({ action, confidence, answers: members.length, horizons: horizonsOf(members, horizons) })
    }
  }
  return {
    groups,
    baseline: {
      action: 'ALWAYS_CONFIRM',
      confidence: null,
      answers: steps.length,
      horizons: horizonsOf(steps, horizons)
    }
  }
}
