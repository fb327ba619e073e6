/**
 * @module
 * Worker thread that parses, validates and encodes admin-ingest NDJSON bodies off the event loop.
 * Request: `{ id, kind, body: ArrayBuffer }` (a body in memory) or `{ id, kind, file }` (a spooled body,
 * read in pieces); reply: `{ id, result }` with chunk payloads transferred, or `{ id, error }` when the file cannot be read.
 */
import { parentPort } from 'node:worker_threads'
import type { RecordKind } from '../../engine/records/types.js'
import { parseNdjsonRecords, type NdjsonResult } from '../ndjson-records.js'
import { parseNdjsonFile } from '../ndjson-file.js'

const port = parentPort!
const decoder = new TextDecoder('utf-8', { fatal: true })

function parseBody(kind: RecordKind, body: ArrayBuffer): NdjsonResult {
  let text: string
  try {
    text = decoder.decode(body)
  } catch {
    return { ok: false, problem: { line: 0, field: null, message: 'is not UTF-8' } }
  }
  return parseNdjsonRecords(kind, text)
}

port.on('message', (msg: { id: number; kind: RecordKind; body?: ArrayBuffer; file?: string }) => {
  let result: NdjsonResult
  try {
    result = msg.file !== undefined ? parseNdjsonFile(msg.kind, msg.file) : parseBody(msg.kind, msg.body!)
  } catch (err) {
    // the spooled file could not be read: the request fails (500), the worker lives on
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) })
    return
  }
  const transfer = result.ok ? result.chunks.map((c) => c.data.buffer as ArrayBuffer) : []
  port.postMessage({ id: msg.id, result }, transfer)
})
