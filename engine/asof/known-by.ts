/**
 * @module
 * `known_by` on the history endpoints (docs/history.md "Known by"): an optional moment bounding the records
 * an answer may use to those the service had received by then (`ingest_ts <= known_by`). Unlike `as_of`
 * it does not move the answer's range: a history answer covers the range asked, as it was known then.
 * Accepted forms and the future rule are those of `as_of` (point-in-time.ts); no plan-depth rule applies
 * (the range parameters carry it).
 */
import { ApiError } from '../errors.js'
import { parseMoment } from './point-in-time.js'

const iso = (ms: number): string => new Date(ms).toISOString()

/** Epoch ms of `known_by`, or undefined when absent; 400 when malformed or later than `nowMs`. */
export function resolveKnownBy(text: string | undefined, nowMs: number): number | undefined {
  if (text === undefined) return undefined
  const ms = parseMoment(text, 'known_by')
  if (ms > nowMs) {
    throw new ApiError(
      'invalid_parameter',
      `known_by ${iso(ms)} is in the future (the server's clock reads ${iso(nowMs)})`,
      { param: 'known_by' }
    )
  }
  return ms
}

/** The `meta` member a history answer with `known_by` adds (absent without it, so those answers keep their bytes). */
export const knownByMeta = (knownByMs: number | undefined): Readonly<Record<string, string>> =>
  knownByMs === undefined ? {} : { known_by: iso(knownByMs) }
