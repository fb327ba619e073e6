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

/**
 * The records of an NDJSON body, one line at a time (a body read in pieces never needs to be whole in
 * memory): `add` each line without its newline until it returns false (a problem stops the read), then
 * `finish`.
 */
export class NdjsonRecordReader {
  private readonly records: NormalizedRecord[] = []
  private line = 0
  private problem: NdjsonProblem | null = null

  constructor(private readonly kind: RecordKind) {}

  /** the 1-based number of the line `add` will read next */
  get nextLine(): number {
    return this.line + 1
  }

  /** Stops the read at the next line with `message` (e.g. a line too long to take). */
  fail(message: string): void {
    this.problem ??= { line: this.line + 1, field: null, message }
  }

  add(text: string): boolean {
    if (this.problem) return false
    this.line++
    const raw = text.trim()
    if (raw === '') return true
    const line = this.line
    if (this.records.length >= MAX_NDJSON_RECORDS) {
      this.problem = { line, field: null, message: `more than ${MAX_NDJSON_RECORDS} records; split the body` }
      return false
    }
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      this.problem = { line, field: null, message: 'is not valid JSON' }
      return false
    }
    const v = validateRecord(this.kind, value)
    if (!v.ok) {
      this.problem = { line, field: v.problem.field, message: v.problem.message }
      return false
    }
    this.records.push(v.record)
    return true
  }

  finish(): NdjsonResult {
    if (this.problem) return { ok: false, problem: this.problem }
    const records = this.records
    if (records.length === 0)
      return { ok: false, problem: { line: 0, field: null, message: 'the body holds no records' } }
    const chunks = encodeRecords(records, true)
    if (this.kind === 'option_quote') chunks.push(...deriveOptionsMetrics(records as OptionQuoteRecord[], true))
    return { ok: true, rows: records.length, chunks, records: records.length <= LIVE_RECORDS_MAX ? records : null }
  }
}

export function parseNdjsonRecords(kind: RecordKind, text: string): NdjsonResult {
  const reader = new NdjsonRecordReader(kind)
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    if (!reader.add(text.slice(start, end))) break
    start = end + 1
  }
  return reader.finish()
}
