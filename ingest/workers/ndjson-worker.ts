/**
 * @module
 * Worker thread that parses, validates and encodes admin-ingest NDJSON bodies off the event loop.
 * Request: `{ id, kind, body: ArrayBuffer }`; reply: `{ id, result }` with chunk payloads transferred.
 */
import { parentPort } from 'node:worker_threads'
import type { RecordKind } from '../../engine/records/types.js'
import { parseNdjsonRecords } from '../ndjson-records.js'

const port = parentPort!
const decoder = new TextDecoder('utf-8', { fatal: true })

port.on('message', (msg: { id: number; kind: RecordKind; body: ArrayBuffer }) => {
  let text: string
  try {
    text = decoder.decode(msg.body)
  } catch {
    port.postMessage({ id: msg.id, result: { ok: false, problem: { line: 0, field: null, message: 'is not UTF-8' } } })
    return
  }
  const result = parseNdjsonRecords(msg.kind, text)
  const transfer = result.ok ? result.chunks.map((c) => c.data.buffer as ArrayBuffer) : []
  port.postMessage({ id: msg.id, result }, transfer)
})
