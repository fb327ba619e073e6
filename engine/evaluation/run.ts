/**
 * @module
 * The walk-forward evaluation of the confirm model on stored history (docs/confirm.md, "Evaluation"): for
 * each market and step, the confirm answer as it was at the step (`confirmSeries`, each step its own
 * `known_by` unless one is fixed, so nothing received later is used) and the forward returns of the direction from the market's
 * stored candles; then the report of engine/evaluation/report.ts. The returns are outcomes, measured with
 * every candle stored now; the answers are point-in-time.
 */
import type { ConfirmResult, Direction } from '../confirm/types.js'
import { readCandles } from '../history/candles.js'
import type { Market } from '../history/markets.js'
import { fixedMs } from '../history/span.js'
import type { Timeframe } from '../history/timeframes.js'
import type { Store } from '../store/store.js'
import { closesOf, forwardReturn } from './forward-returns.js'
import { evaluationReport, type EvaluatedStep, type EvaluationReport } from './report.js'
import type { Horizon } from './steps.js'

/** The confirm answers of a base at past steps (engine/asof/confirm-at.ts `confirmSeries`). */
export type ConfirmSeries = (
  store: Store,
  base: string,
  direction: Direction,
  stepsMs: readonly number[],
  knownByMs?: number
) => Promise<ConfirmResult[]>

export interface EvaluationInput {
  /** the market whose candles price each base, one per base, in the order reported */
  readonly markets: readonly Market[]
  readonly direction: Direction
  /** step moments, ascending, epoch ms, each at or before nowMs */
  readonly stepsMs: readonly number[]
  readonly horizons: readonly Horizon[]
  /** candles prices are read from (engine/evaluation/steps.ts `priceTimeframe`) */
  readonly price: Timeframe
  /** only candles closed by then are read, epoch ms */
  readonly nowMs: number
  /** a fixed receive-time bound of every answer; undefined: each step its own (no lookahead) */
  readonly knownByMs?: number | undefined
}

/** The steps of one market, evaluated. */
export async function evaluateMarket(
  store: Store,
  series: ConfirmSeries,
  market: Market,
  input: EvaluationInput
): Promise<EvaluatedStep[]> {
  const steps = input.stepsMs
  if (steps.length === 0) return []
  const widthMs = fixedMs(input.price.span)!
  const maxH = Math.max(...input.horizons.map((h) => h.ms))
  // closed candles only: a bucket ending after now is still open
  const to = Math.min(steps[steps.length - 1]! + maxH, Math.floor(input.nowMs / widthMs) * widthMs)
  const [answers, candles] = await Promise.all([
    series(store, market.base, input.direction, steps, input.knownByMs),
    readCandles(store, market, input.price.table, input.price.name, steps[0]! - widthMs, to)
  ])
  const closes = closesOf(candles, widthMs)
  return answers.map((a, i) => ({
    action: a.action,
    confidence: a.confidence,
    returns: input.horizons.map((h) => forwardReturn(closes, steps[i]!, h.ms, input.direction))
  }))
}

/** Every market's steps evaluated (markets one after another: the store is shared), then grouped. */
export async function runEvaluation(
  store: Store,
  series: ConfirmSeries,
  input: EvaluationInput
): Promise<EvaluationReport> {
  const all: EvaluatedStep[] = []
  for (const m of input.markets) all.push(...(await evaluateMarket(store, series, m, input)))
  return evaluationReport(
    all,
    input.horizons.map((h) => h.name)
  )
}
