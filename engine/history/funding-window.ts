/**
 * @module
 * The time window of the funding endpoints (docs/history-funding.md). Funding history is kept per hour
 * (`funding_1h`, 24 months), so an `interval` must be a whole number of hours: 1h, 4h, 8h, 12h, 1d, 1w, 1M.
 * The window is the requested range resolved by `resolveRange` (lookback, at most 24 months, plan depth),
 * then widened to whole buckets: from the first bucket starting at or after the range start to the end of
 * the bucket holding the range end. With a lookback of 7d at 1h that is 168 buckets, the newest one still
 * filling.
 */
import type { Plan } from '../access/plans.js'
import { ApiError } from '../errors.js'
import { HOUR, ceilTo, describeSpan, isWholeMultiple, parseSpan, plus, type Span } from './span.js'
import { resolveRange, type TimeRange } from './range.js'

/** The funding aggregates' TTL (schemas/003_derivatives_aggregates.sql): nothing older exists. */
export const FUNDING_MAX_LOOKBACK: Span = { n: 24, unit: 'M' }

const INTERVAL_HELP =
  'must be a whole number of hours, e.g. 1h, 4h, 8h, 12h, 1d, 1w or 1M (funding history is kept per hour)'

/** Parses `interval`; 400 naming the accepted forms when it is not a whole number of hours. */
export function parseFundingInterval(text: string, param = 'interval'): Span {
  let span: Span
  try {
    span = parseSpan(text, param)
  } catch (err) {
    throw new ApiError('invalid_parameter', `${param} ${INTERVAL_HELP}`, { param, cause: err })
  }
  if (!isWholeMultiple(span, HOUR)) throw new ApiError('invalid_parameter', `${param} ${INTERVAL_HELP}`, { param })
  return span
}

export interface WindowRequest {
  readonly lookback?: string | undefined
  /** bucket width, already parsed */
  readonly span: Span
  readonly defaultLookback: Span
  readonly plan: Plan | null
  readonly nowMs: number
}

/** The bucket-aligned window [fromMs, toMs) of a request; 400 when the lookback is shorter than a bucket. */
export function fundingWindow(r: WindowRequest): TimeRange {
  const range = resolveRange(
    { lookback: r.lookback },
    {
      defaultLookback: r.defaultLookback,
      maxLookback: { span: FUNDING_MAX_LOOKBACK, what: 'funding history' },
      plan: r.plan
    },
    r.nowMs
  )
  if (plus(range.fromMs, r.span) > range.toMs) {
    throw new ApiError(
      'invalid_parameter',
      `lookback must cover at least one interval (${describeSpan(r.span)}); give a longer lookback or a shorter interval`,
      { param: 'lookback' }
    )
  }
  return { fromMs: ceilTo(range.fromMs, r.span), toMs: ceilTo(range.toMs, r.span) }
}
