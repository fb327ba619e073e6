/**
 * @module
 * Parses and validates an NDJSON body of normalized records of one kind, all or nothing: the first bad
 * line stops it with its 1-based line number and field, and nothing is returned to write. On success the
 * records are encoded into chunks for the raw table (and derived tables for option quotes).
 */
import { validateRecord } from '../engine/records/validate.js'
import type { NormalizedRecord, OptionQuoteRecord, RecordKind } from '../engine/records/types.js'
import { encodeRecords } from './encode-records.js'
import { deriveOptionsMetrics } from './derive/options-metrics.js'
import type { EncodedChunk } from './encoded-chunk.js'

/** Most records one request may carry: one insert block, so the write stays all-or-nothing. */
export const MAX_NDJSON_RECORDS = 1_000_000
/**
 * Bodies up to this many records also hand their decoded records to the live state (copied between
 * threads, ~1 µs a record); larger loads make the live state reload from the store instead.
 */
export const LIVE_RECORDS_MAX = 10_000

export interface NdjsonProblem {
  /** 1-based line number; 0 for the body as a whole */
  readonly line: number
  readonly field: string | null
  readonly message: string
}

export type NdjsonResult =
  | {
      readonly ok: true
      readonly rows: number
      readonly chunks: EncodedChunk[]
      /** the records, for the live state; null when there are more than LIVE_RECORDS_MAX */
      readonly records: NormalizedRecord[] | null
    }
  | { readonly ok: false; readonly problem: NdjsonProblem }

export function parseNdjsonRecords(kind: RecordKind, text: string): NdjsonResult {
  const records: NormalizedRecord[] = []
  let line = 0
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    line++
    const raw = text.slice(start, end).trim()
    start = end + 1
    if (raw === '') continue
    if (records.length >= MAX_NDJSON_RECORDS) {
      return {
        ok: false,
        problem: { line, field: null, message: `more than ${MAX_NDJSON_RECORDS} records; split the body` }
      }
    }
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      return { ok: false, problem: { line, field: null, message: 'is not valid JSON' } }
    }
    const v = validateRecord(kind, value)
    if (!v.ok) return { ok: false, problem: { line, field: v.problem.field, message: v.problem.message } }
    records.push(v.record)
  }
  if (records.length === 0)
    return { ok: false, problem: { line: 0, field: null, message: 'the body holds no records' } }
  const chunks = encodeRecords(records, true)
  if (kind === 'option_quote') chunks.push(...deriveOptionsMetrics(records as OptionQuoteRecord[], true))
  return { ok: true, rows: records.length, chunks, records: records.length <= LIVE_RECORDS_MAX ? records : null }
}
