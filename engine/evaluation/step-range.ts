/**
 * @module
 * The range of steps of `GET /v1/confirm/history` and `/v1/confirm/evaluation`: `start` and `end` as
 * moments (engine/asof/point-in-time.ts forms), checked once with a message for a person: malformed 400
 * naming the forms; in the future 400; end not after start 400; start before the plan's history depth 403
 * naming the depth (the rule of `as_of`: each step is an answer as of that moment).
 */
import type { Plan } from '../access/plans.js'
import { parseMoment } from '../asof/point-in-time.js'
import { ApiError } from '../errors.js'

const DAY_MS = 86_400_000

const iso = (ms: number): string => new Date(ms).toISOString()

export interface StepRange {
  /** first step at or after it, epoch ms */
  readonly startMs: number
  /** steps before it, epoch ms (exclusive) */
  readonly endMs: number
}

function notFuture(ms: number, param: string, nowMs: number): void {
  if (ms > nowMs) {
    throw new ApiError(
      'invalid_parameter',
      `${param} ${iso(ms)} is in the future (the server's clock reads ${iso(nowMs)}); an answer exists only for past moments`,
      { param }
    )
  }
}

/** 403 naming the plan's depth when the first step lies before it (null depth: the full archive). */
export function checkStartDepth(startMs: number, plan: Plan | null, nowMs: number, keylessDays = 30): void {
  const days = plan ? plan.historyDays : keylessDays
  if (days === null || startMs >= nowMs - days * DAY_MS) return
  throw new ApiError(
    'forbidden',
    `the ${plan?.name ?? 'free'} plan reaches ${days} days back; start ${iso(startMs)} is ${Math.ceil((nowMs - startMs) / DAY_MS)} days ago`,
    { param: 'start' }
  )
}

/**
 * @param defaultSpanMs without `end`, the range ends at the earlier of now and start + this (ms): the longest
 * range the endpoint takes, so a `start` alone is always a whole answer. @default Infinity (now)
 */
export function resolveStepRange(
  q: { readonly start: string; readonly end?: string | undefined },
  plan: Plan | null,
  nowMs: number,
  defaultSpanMs = Infinity
): StepRange {
  const startMs = parseMoment(q.start, 'start')
  notFuture(startMs, 'start', nowMs)
  const endMs = q.end === undefined ? Math.min(nowMs, startMs + defaultSpanMs) : parseMoment(q.end, 'end')
  notFuture(endMs, 'end', nowMs)
  if (endMs <= startMs) {
    throw new ApiError('invalid_parameter', `end ${iso(endMs)} must be after start ${iso(startMs)}`, { param: 'end' })
  }
  checkStartDepth(startMs, plan, nowMs)
  return { startMs, endMs }
}
