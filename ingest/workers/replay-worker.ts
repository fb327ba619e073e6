/**
 * @module
 * Worker thread of a full-speed replay: reads the recording files (gunzip, UTF-8, line split), normalizes
 * every line (replay-lines.ts, the same code as the in-thread path) and encodes the records to TSV chunks
 * with their hashes, cut exactly where the in-thread path cuts them (every CHUNK_RECORDS records and at the
 * end), so the pipeline seals the same batches with the same dedup tokens. The main thread only routes
 * the chunks into the pipeline and writes. Bounded by credits (replay-protocol.ts); a stop request is
 * honoured between batches.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { encodeRecords } from '../encode-records.js'
import { ReplayLines } from '../record/replay-lines.js'
import { recordedLines } from '../record/replay-reader.js'
import { CHUNK_RECORDS } from '../sources/feed/feed-pump.js'
import {
  REPLAY_CREDITS,
  type ChunkPayload,
  type MainToReplay,
  type ReplayToMain,
  type ReplayWorkerData
} from './replay-protocol.js'

const port = parentPort!
const { files } = workerData as ReplayWorkerData

let credits = REPLAY_CREDITS
let stopping = false
let wake: (() => void) | undefined

port.on('message', (msg: MainToReplay) => {
  if (msg.type === 'credit') credits += msg.n
  else stopping = true
  wake?.()
})

function post(msg: ReplayToMain, transfer: ArrayBuffer[] = []): void {
  port.postMessage(msg, transfer)
}

const replay = new ReplayLines()

/** Encodes `records` and posts them as one batch, once a credit is free. */
async function send(records: NormalizedRecord[]): Promise<void> {
  replay.handed(records)
  const chunks: ChunkPayload[] = []
  const transfer: ArrayBuffer[] = []
  for (const c of encodeRecords(records, true)) {
    // makeChunk's bytes own their ArrayBuffer (TextEncoder output), so it transfers whole
    const u8 = c.data
    const data = (
      u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength ? u8.buffer : u8.slice().buffer
    ) as ArrayBuffer
    chunks.push({ table: c.table, columns: c.columns, rows: c.rows, data, hash: c.hash, bulk: c.bulk })
    transfer.push(data)
  }
  while (credits <= 0 && !stopping) await new Promise<void>((r) => (wake = r))
  if (stopping) return
  credits--
  post({ type: 'batch', chunks, counts: replay.counts() }, transfer)
}

async function main(): Promise<void> {
  let out: NormalizedRecord[] = []
  for (const file of files) {
    const reader = recordedLines(file)
    for await (const batch of reader.lines) {
      if (stopping) break
      for (let i = 0; i < batch.length; i++) {
        if (Number.isNaN(replay.read(batch[i]!))) continue
        replay.normalize(out)
        if (out.length >= CHUNK_RECORDS) {
          await send(out)
          out = []
        }
      }
    }
    if (stopping) {
      post({ type: 'end', counts: replay.counts(), complete: false })
      return
    }
    if (reader.error !== null) post({ type: 'truncated', file, error: reader.error })
  }
  if (out.length > 0) await send(out)
  post({ type: 'end', counts: replay.counts(), complete: !stopping })
}

main().catch((err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }))
