/**
 * @module
 * Reads an NDJSON body from a file (a spooled admin ingest body) piece by piece, so the body is never whole
 * in memory: FILE_PIECE_BYTES at a time, decoded as UTF-8 across piece boundaries, lines handed to an
 * NdjsonRecordReader. A line longer than MAX_NDJSON_LINE_CHARS stops the read (a record is a few hundred
 * characters; one unbroken 250 MB "line" must not be gathered in memory).
 */
import fs from 'node:fs'
import type { RecordKind } from '../engine/records/types.js'
import { NdjsonRecordReader, type NdjsonResult } from './ndjson-records.js'

/** Bytes read from the file at a time. */
const FILE_PIECE_BYTES = 1024 * 1024
/** Longest line taken, UTF-16 units: far above any record (a few hundred), far below a body. */
export const MAX_NDJSON_LINE_CHARS = 1024 * 1024

const NOT_UTF8: NdjsonResult = { ok: false, problem: { line: 0, field: null, message: 'is not UTF-8' } }

export function parseNdjsonFile(kind: RecordKind, file: string): NdjsonResult {
  const reader = new NdjsonRecordReader(kind)
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const piece = Buffer.allocUnsafe(FILE_PIECE_BYTES)
  const fd = fs.openSync(file, 'r')
  let carry = ''
  try {
    for (;;) {
      const n = fs.readSync(fd, piece, 0, FILE_PIECE_BYTES, null)
      let text: string
      try {
        text = decoder.decode(piece.subarray(0, n), { stream: n > 0 })
      } catch {
        return NOT_UTF8
      }
      let start = 0
      for (;;) {
        const end = text.indexOf('\n', start)
        if (end === -1) break
        const line = carry === '' ? text.slice(start, end) : carry + text.slice(start, end)
        carry = ''
        if (!reader.add(line)) return reader.finish()
        start = end + 1
      }
      carry += text.slice(start)
      if (carry.length > MAX_NDJSON_LINE_CHARS) {
        reader.fail(`is longer than ${MAX_NDJSON_LINE_CHARS} characters`)
        return reader.finish()
      }
      if (n === 0) break
    }
    reader.add(carry)
    return reader.finish()
  } finally {
    fs.closeSync(fd)
  }
}
