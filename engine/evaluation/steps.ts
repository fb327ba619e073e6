/**
 * @module
 * The step grid of `GET /v1/confirm/history` and `/v1/confirm/evaluation`, and the evaluation's horizons.
 * Steps are multiples of the interval counted from the Unix epoch (a 1h step is a whole UTC hour, 1d a UTC
 * midnight), in [start, end). Horizons are fixed lengths (minutes, hours, days).
 */
import { ApiError } from '../errors.js'
import { formatSpan, fixedMs, parseSpan } from '../history/span.js'
import { TIMEFRAMES, type Timeframe } from '../history/timeframes.js'

/** The step intervals offered, narrowest first; each is a candle timeframe, so a step is a candle's end. */
export const STEP_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const
export type StepInterval = (typeof STEP_INTERVALS)[number]

/** Length of a step interval, ms. */
export function intervalMs(name: StepInterval): number {
  return fixedMs(TIMEFRAMES[name].span)!
}

/** Step moments in [fromMs, toMs), multiples of `stepMs`, at most `max` of them (epoch ms). */
export function stepGrid(fromMs: number, toMs: number, stepMs: number, max: number): number[] {
  const out: number[] = []
  for (let t = Math.ceil(fromMs / stepMs) * stepMs; t < toMs && out.length < max; t += stepMs) out.push(t)
  return out
}

/** Steps in [fromMs, toMs) without building them. */
export function stepCount(fromMs: number, toMs: number, stepMs: number): number {
  const first = Math.ceil(fromMs / stepMs) * stepMs
  return first >= toMs ? 0 : Math.floor((toMs - 1 - first) / stepMs) + 1
}

/** The longest horizon, ms: 30 days. */
export const MAX_HORIZON_MS = 30 * 86_400_000

export interface Horizon {
  /** as written in the answer, e.g. `4h` */
  readonly name: string
  readonly ms: number
}

/** A horizon in the span notation: minutes, hours or days, 1m to 30d; 400 naming `param` otherwise. */
export function parseHorizon(text: string, param: string): Horizon {
  const span = parseSpan(text, param)
  const ms = fixedMs(span)
  if (ms === null || span.unit === 'w' || ms > MAX_HORIZON_MS) {
    throw new ApiError('invalid_parameter', `${param} takes minutes, hours or days from 1m to 30d; got ${text}`, {
      param
    })
  }
  return { name: formatSpan(span), ms }
}

/**
 * The candle timeframe prices are read from: the widest offered whose width divides the interval and every
 * horizon, so each step and each step + horizon is a candle's end (1m always qualifies).
 */
export function priceTimeframe(stepMs: number, horizons: readonly Horizon[]): Timeframe {
  let best = TIMEFRAMES['1m']
  for (const name of STEP_INTERVALS) {
    const w = intervalMs(name)
    if (stepMs % w === 0 && horizons.every((h) => h.ms % w === 0)) best = TIMEFRAMES[name]
  }
  return best
}
