/**
 * @module
 * Time spans written the way users write them: `90m`, `12h`, `30d`, `2w`, `6M`, `1y`. A span is a count
 * and a unit; minutes, hours, days and weeks are fixed lengths, months and years are calendar months
 * (UTC). The same notation names bucket widths (`1h`, `4h`, `3m`, `12h`, `1M`).
 *
 * Bucket alignment (the same in JS and SQL, see `bucketSql`): fixed units align on multiples of the
 * width counted from the Unix epoch; weeks on multiples counted from Monday 1970-01-05 (so `1w` starts
 * on Monday 00:00 UTC); months on multiples counted from January 1970 (so `3M` are calendar quarters).
 */
import { ApiError } from '../errors.js'

export type SpanUnit = 'm' | 'h' | 'd' | 'w' | 'M' | 'y'

export interface Span {
  readonly n: number
  readonly unit: SpanUnit
}

const UNIT_MS: Readonly<Record<'m' | 'h' | 'd' | 'w', number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000
}

const UNIT_WORD: Readonly<Record<SpanUnit, string>> = {
  m: 'minute',
  h: 'hour',
  d: 'day',
  w: 'week',
  M: 'month',
  y: 'year'
}

/** Monday 1970-01-05 00:00 UTC, ms: the origin of week buckets. */
const WEEK_ORIGIN_MS = 4 * 86_400_000

/** The largest count a span may have (keeps arithmetic far from overflow). */
const MAX_COUNT = 100_000

const SPAN_RE = /^(\d{1,6})(m|h|d|w|M|y)$/

/** Parses `30d`-style text; throws a 400 naming `param` when it is not one. */
export function parseSpan(text: string, param: string): Span {
  const m = SPAN_RE.exec(text)
  const n = m ? Number(m[1]) : 0
  if (!m || n < 1 || n > MAX_COUNT) {
    throw new ApiError(
      'invalid_parameter',
      `${param} must be a count and a unit, e.g. 90m, 12h, 30d, 2w, 6M or 1y (m minutes, h hours, d days, w weeks, M months, y years)`,
      { param }
    )
  }
  return { n, unit: m[2] as SpanUnit }
}

export function formatSpan(s: Span): string {
  return `${s.n}${s.unit}`
}

/** `30 days`, `1 hour`: for messages. */
export function describeSpan(s: Span): string {
  return `${s.n} ${UNIT_WORD[s.unit]}${s.n === 1 ? '' : 's'}`
}

/** One hour and one day: the widths of the hourly and daily aggregate tables. */
export const HOUR: Span = { n: 1, unit: 'h' }
export const DAY: Span = { n: 1, unit: 'd' }

/** Fixed length in ms, or null for calendar units (months, years). */
export function fixedMs(s: Span): number | null {
  return s.unit === 'M' || s.unit === 'y' ? null : s.n * UNIT_MS[s.unit]
}

/** Calendar months of a month or year span, else null. */
function months(s: Span): number | null {
  return s.unit === 'M' ? s.n : s.unit === 'y' ? 12 * s.n : null
}

function addMonths(ms: number, delta: number): number {
  const d = new Date(ms)
  const target = d.getUTCMonth() + delta
  const out = Date.UTC(
    d.getUTCFullYear(),
    target,
    1,
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds()
  )
  // keep the day of month, clamped to the target month's length (31 Mar - 1M = 28/29 Feb)
  const last = new Date(Date.UTC(new Date(out).getUTCFullYear(), new Date(out).getUTCMonth() + 1, 0)).getUTCDate()
  return out + (Math.min(d.getUTCDate(), last) - 1) * 86_400_000
}

/** `ms` moved back by the span (calendar months for M and y). */
export function minus(ms: number, s: Span): number {
  const m = months(s)
  return m === null ? ms - fixedMs(s)! : addMonths(ms, -m)
}

/** `ms` moved forward by the span. */
export function plus(ms: number, s: Span): number {
  const m = months(s)
  return m === null ? ms + fixedMs(s)! : addMonths(ms, m)
}

/** Start of the bucket of width `s` holding `ms` (alignment in the module comment). */
export function floorTo(ms: number, s: Span): number {
  const m = months(s)
  if (m !== null) {
    const d = new Date(ms)
    const index = (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth()
    const start = Math.floor(index / m) * m
    return Date.UTC(1970 + Math.floor(start / 12), start % 12, 1)
  }
  const step = fixedMs(s)!
  const origin = s.unit === 'w' ? WEEK_ORIGIN_MS : 0
  return Math.floor((ms - origin) / step) * step + origin
}

/** Start of the first bucket at or after `ms`. */
export function ceilTo(ms: number, s: Span): number {
  const f = floorTo(ms, s)
  return f === ms ? f : plus(f, s)
}

/** Bucket starts in [fromMs, toMs), both aligned by the caller or not: starts >= fromMs and < toMs. */
export function bucketStarts(fromMs: number, toMs: number, s: Span, max = 1_000_000): number[] {
  const out: number[] = []
  for (let t = ceilTo(fromMs, s); t < toMs && out.length < max; t = plus(t, s)) out.push(t)
  return out
}

/** True when every bucket of `coarse` is a union of whole buckets of `fine` (same alignment rules). */
export function isWholeMultiple(coarse: Span, fine: Span): boolean {
  const cm = months(coarse)
  const fm = months(fine)
  if (cm !== null) {
    if (fm !== null) return cm % fm === 0
    // calendar months start at midnight: any fine width dividing a day divides a month
    const f = fixedMs(fine)!
    return fine.unit !== 'w' && UNIT_MS.d % f === 0
  }
  if (fm !== null) return false
  const c = fixedMs(coarse)!
  const f = fixedMs(fine)!
  if (c % f !== 0) return false
  // weeks start on Monday (4 days after the epoch): the fine grid must also hit that origin
  if (coarse.unit === 'w' && fine.unit !== 'w') return WEEK_ORIGIN_MS % f === 0
  if (fine.unit === 'w' && coarse.unit !== 'w') return false
  return true
}

/**
 * SQL expression of the bucket of width `s` holding the DateTime column `col`, aligned as `floorTo`.
 * Only numbers from a parsed span reach the text (no user text).
 */
export function bucketSql(col: string, s: Span): string {
  const m = months(s)
  if (m !== null) return `toDateTime(toStartOfInterval(${col}, INTERVAL ${m} MONTH), 'UTC')`
  const step = fixedMs(s)! / 1000
  const origin = s.unit === 'w' ? WEEK_ORIGIN_MS / 1000 : 0
  return origin
    ? `toDateTime(intDiv(toUInt32(${col}) - ${origin}, ${step}) * ${step} + ${origin}, 'UTC')`
    : `toDateTime(intDiv(toUInt32(${col}), ${step}) * ${step}, 'UTC')`
}
