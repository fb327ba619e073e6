/**
 * @module
 * The optional sequence fields of an alert (docs/alerts.md, "Sequence checks"): `seq`, a number that grows
 * with each alert of a strategy (an order id, a bar index) or a date (`{{timenow}}`, when the alert fired),
 * and `time`, the bar's open time (`{{time}}`). Both are read here; the per-strategy judgement is
 * engine/alerts/strategy-status.ts.
 */
import { ApiError } from '../errors.js'

/** A sequence value: a number compared as such, or a date (epoch ms) compared in time. */
export type SeqValue =
  { readonly kind: 'number'; readonly value: number } | { readonly kind: 'time'; readonly value: number }

/** ISO 8601 date-time in UTC or with an offset, as TradingView's {{timenow}} and {{time}} render it. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/
/** Largest numeric sequence: integers stay exact below 2^53. */
const SEQ_MAX = Number.MAX_SAFE_INTEGER
/** Epoch ms from 2000-01-01 to 2100-01-01: a number outside is not read as a time. */
const EPOCH_MS_MIN = 946_684_800_000
const EPOCH_MS_MAX = 4_102_444_800_000

const bad = (field: string, message: string): ApiError =>
  new ApiError('invalid_parameter', `${field} ${message}`, { param: field })

function isoMs(s: string): number | null {
  if (!ISO_DATE_TIME.test(s)) return null
  const ms = Date.parse(s)
  return Number.isFinite(ms) ? ms : null
}

/** `seq`: a non-negative number (or a string holding one), or an ISO 8601 date-time; null when absent. */
export function readSeq(v: unknown): SeqValue | null {
  if (v === undefined || v === null) return null
  if (typeof v === 'number' || (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v))) {
    const n = Number(v)
    if (Number.isFinite(n) && n >= 0 && n <= SEQ_MAX) return { kind: 'number', value: n }
  } else if (typeof v === 'string') {
    const ms = isoMs(v.trim())
    if (ms !== null) return { kind: 'time', value: ms }
  }
  throw bad(
    'seq',
    `must be a number from 0 to ${SEQ_MAX} (an order id, a bar index) or a date in ISO 8601 UTC such as {{timenow}} (2024-05-01T12:00:00Z)`
  )
}

/** `time`: the bar's open time, ISO 8601 ({{time}}) or epoch ms; null when absent. */
export function readBarTime(v: unknown): number | null {
  if (v === undefined || v === null) return null
  if (typeof v === 'number' && Number.isInteger(v) && v >= EPOCH_MS_MIN && v <= EPOCH_MS_MAX) return v
  if (typeof v === 'string') {
    const ms = isoMs(v.trim())
    if (ms !== null) return ms
  }
  throw bad('time', 'must be a date in ISO 8601 UTC such as {{time}} (2024-05-01T12:00:00Z) or epoch milliseconds')
}
