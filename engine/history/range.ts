/**
 * @module
 * The time range of a historical request, from `lookback` (ending now or at `end_time`) or from
 * `start_time`/`end_time` (epoch ms) or from dates (`YYYY-MM-DD`, UTC, end date inclusive). Two limits are
 * enforced, each with a 400 naming it: the endpoint's maximum lookback (e.g. the timeframe table) and the
 * caller's plan history depth (free 30 days), the latter counted back from now.
 *
 * The epoch: nothing is stored before 1970-01-01 00:00 UTC (the time columns are `DateTime`), so a range
 * reaching before it is cut there after the limits are checked (the limits judge the range as asked, the
 * same way at every end time), and a range wholly before it is empty (`fromMs === toMs === 0`): an answer
 * without rows, not an error. A range whose start the caller gave at or after its end is a 400.
 */
import type { Plan } from '../access/plans.js'
import { ApiError } from '../errors.js'
import { describeSpan, minus, parseSpan, type Span } from './span.js'

const DAY_MS = 86_400_000

/** A half-open range [fromMs, toMs) in epoch ms; resolved ranges have 0 <= fromMs <= toMs. */
export interface TimeRange {
  readonly fromMs: number
  readonly toMs: number
}

export interface RangeQuery {
  readonly lookback?: string | undefined
  readonly start_time?: number | undefined
  readonly end_time?: number | undefined
}

export interface RangeLimits {
  /** used when neither lookback nor start_time is given */
  readonly defaultLookback: Span
  /** longest range allowed, with what imposes it (for the message), e.g. `timeframe 1m` */
  readonly maxLookback?: { readonly span: Span; readonly what: string }
  /** the caller's plan; null (no key) is held to the free plan's depth */
  readonly plan: Plan | null
  /** the free plan's depth applies to keyless callers */
  readonly keylessDays?: number
}

function bad(param: string, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param })
}

/** Resolves lookback / start_time / end_time into a checked range, cut at the epoch (module comment). */
export function resolveRange(q: RangeQuery, limits: RangeLimits, nowMs: number): TimeRange {
  if (q.lookback !== undefined && q.start_time !== undefined) {
    throw bad('lookback', 'give either lookback or start_time (with end_time), not both')
  }
  const toMs = q.end_time ?? nowMs
  let fromMs: number
  let param = 'lookback'
  if (q.start_time !== undefined) {
    fromMs = q.start_time
    param = 'start_time'
    if (fromMs >= toMs) throw bad(param, `start_time must be before end_time (${iso(toMs)})`)
  } else if (q.lookback !== undefined) {
    fromMs = minus(toMs, parseSpan(q.lookback, 'lookback'))
  } else {
    // the default never exceeds the limits: it shrinks to the maximum lookback and the plan's depth
    const depthStart = planDepthStart(limits.plan, nowMs, limits.keylessDays)
    if (toMs <= depthStart) {
      // nothing of the range lies within the plan's reach: name end_time, the parameter that put it there
      checkPlanDepth(toMs, limits.plan, nowMs, 'end_time', 'end_time is', limits.keylessDays)
    }
    fromMs = Math.max(
      minus(toMs, limits.defaultLookback),
      limits.maxLookback ? minus(toMs, limits.maxLookback.span) : -Infinity,
      depthStart
    )
  }
  return fromEpoch(checkLimits({ fromMs, toMs }, limits, nowMs, param))
}

/** `YYYY-MM-DD` at 00:00 UTC, ms. */
export function parseDate(text: string, param: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999
  const ms = m ? new Date(0).setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw bad(param, `${param} must be a date YYYY-MM-DD (UTC), e.g. 2026-01-31`)
  }
  return ms
}

/** A date range: from the start date's midnight to the end of the end date (inclusive), both UTC. */
export function resolveDateRange(
  start: string,
  end: string,
  names: { readonly start: string; readonly end: string },
  limits: Omit<RangeLimits, 'defaultLookback'>,
  nowMs: number
): TimeRange {
  const fromMs = parseDate(start, names.start)
  const toMs = parseDate(end, names.end) + DAY_MS
  if (fromMs >= toMs) throw bad(names.end, `${names.end} must not be before ${names.start}`)
  return fromEpoch(
    checkLimits({ fromMs, toMs }, { ...limits, defaultLookback: { n: 1, unit: 'd' } }, nowMs, names.start)
  )
}

/** The range cut at the epoch: nothing is stored before it (module comment); wholly before it, empty. */
function fromEpoch(r: TimeRange): TimeRange {
  const toMs = Math.max(0, r.toMs)
  return { fromMs: Math.min(Math.max(0, r.fromMs), toMs), toMs }
}

const iso = (ms: number): string => new Date(ms).toISOString()

function checkLimits(r: TimeRange, limits: RangeLimits, nowMs: number, param: string): TimeRange {
  const max = limits.maxLookback
  if (max && r.fromMs < minus(r.toMs, max.span)) {
    throw bad(param, `${max.what} allows at most ${describeSpan(max.span)} of history per request; narrow the range`)
  }
  checkPlanDepth(r.fromMs, limits.plan, nowMs, param, 'the range starts', limits.keylessDays)
  return r
}

/** History depth of the caller, days; null = full archive. */
function depthDays(limits: Pick<RangeLimits, 'plan' | 'keylessDays'>): number | null {
  return limits.plan ? limits.plan.historyDays : (limits.keylessDays ?? 30)
}

/** The oldest epoch ms the caller's plan reaches (-Infinity for the full archive). */
export function planDepthStart(plan: Plan | null, nowMs: number, keylessDays?: number): number {
  const days = depthDays({ plan, keylessDays })
  return days === null ? -Infinity : nowMs - days * DAY_MS
}

/**
 * 400 naming the plan's depth when `fromMs` lies before it (counted back from now).
 * @param what how the message names `fromMs`, e.g. `the range starts`
 */
export function checkPlanDepth(
  fromMs: number,
  plan: Plan | null,
  nowMs: number,
  param: string,
  what = 'the range starts',
  keylessDays?: number
): void {
  if (fromMs >= planDepthStart(plan, nowMs, keylessDays)) return
  throw bad(
    param,
    `the ${plan?.name ?? 'free'} plan reaches ${depthDays({ plan, keylessDays })} days back; ${what} ${Math.ceil((nowMs - fromMs) / DAY_MS)} days ago`
  )
}
