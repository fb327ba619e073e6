/**
 * @module
 * The moment of a point-in-time answer (`as_of`) and the knowledge it may use (`known_by`): the parameters
 * every `as_of` endpoint and `GET /v1/confirm/history` share, parsed and checked here once.
 *
 * Accepted forms, both UTC: epoch milliseconds (`1767225600000`) or ISO 8601 with a `Z` or `+00:00`
 * offset (`2026-01-01T00:00:00Z`, seconds and milliseconds optional). Rules, each with a message for a
 * person:
 * - malformed: 400 naming the accepted forms;
 * - in the future (later than the server's clock): 400;
 * - earlier than the plan's history depth (counted back from now): 403 naming the depth;
 * - earlier than the oldest stored data: not an error (the endpoint answers what was known: nothing).
 * `known_by` defaults to `as_of`: an answer as of T uses only records the service had received by T, so a
 * later import or gap fill never changes it. A later `known_by` asks what is known now about T.
 */
import type { Plan } from '../access/plans.js'
import { ApiError } from '../errors.js'

const DAY_MS = 86_400_000

/** A moment of answer and the receive-time bound of the records it may use, epoch ms. */
export interface PointInTime {
  /** the answer's moment: records with event time after it are not used */
  readonly asOfMs: number
  /** records received (stored) after it are not used; defaults to asOfMs */
  readonly knownByMs: number
}

/** The accepted forms, as a 400 message names them. */
export const MOMENT_FORMS =
  'epoch milliseconds (e.g. 1767225600000) or ISO 8601 UTC (e.g. 2026-01-01T00:00:00Z, 2026-01-01T00:00:00.000+00:00)'

/** Pattern of both forms (the parameter schema states it; the parser below applies it exactly). */
export const MOMENT_PATTERN =
  '^(?:[0-9]{1,15}|[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,3})?)?(?:Z|\\+00:00))$'

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:Z|\+00:00)$/

function bad(param: string, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param })
}

/** Epoch ms of a moment in one of the accepted forms; 400 naming the forms otherwise. */
export function parseMoment(text: string, param: string): number {
  if (/^\d{1,15}$/.test(text)) return Number(text)
  const m = ISO_RE.exec(text)
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => (x === undefined ? 0 : Number(x))) as number[]
    // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999
    const ms = new Date(0).setUTCFullYear(y!, mo! - 1, d!) + ((h! * 60 + mi!) * 60 + s!) * 1000
    const fracMs = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0'))
    const check = new Date(ms)
    // refuses days and times that do not exist (2026-02-30, 24:00, 12:60)
    if (
      check.getUTCFullYear() === y &&
      check.getUTCMonth() === mo! - 1 &&
      check.getUTCDate() === d &&
      check.getUTCHours() === h &&
      check.getUTCMinutes() === mi &&
      check.getUTCSeconds() === s
    ) {
      return ms + fracMs
    }
  }
  throw bad(param, `${param} must be ${MOMENT_FORMS}; got ${JSON.stringify(text.slice(0, 40))}`)
}

const iso = (ms: number): string => new Date(ms).toISOString()

/** 400 when `ms` lies after the server's clock. */
function checkNotFuture(ms: number, param: string, nowMs: number): void {
  if (ms > nowMs) throw bad(param, `${param} ${iso(ms)} is in the future (the server's clock reads ${iso(nowMs)})`)
}

/** 403 naming the plan's depth when `asOfMs` lies before it (null depth: the full archive). */
export function checkAsOfDepth(asOfMs: number, plan: Plan | null, nowMs: number, keylessDays = 30): void {
  const days = plan ? plan.historyDays : keylessDays
  if (days === null || asOfMs >= nowMs - days * DAY_MS) return
  throw new ApiError(
    'forbidden',
    `the ${plan?.name ?? 'free'} plan reaches ${days} days back; as_of ${iso(asOfMs)} is ${Math.ceil((nowMs - asOfMs) / DAY_MS)} days ago`,
    { param: 'as_of' }
  )
}

export interface PointInTimeQuery {
  readonly as_of?: string | undefined
  readonly known_by?: string | undefined
}

/**
 * The point in time of a request, or null without `as_of` (the live answer). `known_by` without `as_of`
 * is a 400: it bounds what an `as_of` answer may use.
 */
export function resolvePointInTime(q: PointInTimeQuery, plan: Plan | null, nowMs: number): PointInTime | null {
  if (q.as_of === undefined) {
    if (q.known_by !== undefined) throw bad('known_by', 'known_by bounds an as_of answer: give as_of with it')
    return null
  }
  const asOfMs = parseMoment(q.as_of, 'as_of')
  checkNotFuture(asOfMs, 'as_of', nowMs)
  checkAsOfDepth(asOfMs, plan, nowMs)
  const knownByMs = q.known_by === undefined ? asOfMs : parseMoment(q.known_by, 'known_by')
  checkNotFuture(knownByMs, 'known_by', nowMs)
  return { asOfMs, knownByMs }
}

/** The `point_in_time` member of an `as_of` answer (schemas/api/as-of.ts PointInTimeMember). */
export interface PointInTimeInfo {
  readonly as_of: string
  readonly known_by: string
  readonly oldest_known: string | null
  readonly before_data: boolean
}

/** What an `as_of` answer reports about itself; `oldestKnownMs`: event time of the oldest usable data, or null. */
export function pointInTimeInfo(pit: PointInTime, oldestKnownMs: number | null): PointInTimeInfo {
  return {
    as_of: iso(pit.asOfMs),
    known_by: iso(pit.knownByMs),
    oldest_known: oldestKnownMs === null ? null : iso(oldestKnownMs),
    before_data: oldestKnownMs === null || pit.asOfMs < oldestKnownMs
  }
}
