/**
 * @module
 * Worker thread of a full-speed replay: reads the recording files as bytes (gunzip, lines cut from the
 * bytes, record/replay-blocks.ts), takes the Binance aggTrade lines on the byte path and every other line
 * through the normalizers (replay-chunks.ts: the same code as the in-thread path for those), and posts TSV
 * chunks with their hashes, cut exactly where the in-thread path cuts them (every CHUNK_RECORDS records
 * and at the end), so the pipeline seals the same batches with the same dedup tokens. The main thread only
 * routes the chunks into the pipeline and writes. Bounded by credits (replay-protocol.ts); a stop request
 * is honoured between blocks.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { recordedBlocks } from '../record/replay-blocks.js'
import { ReplayChunks } from './replay-chunks.js'
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

const replay = new ReplayChunks()

/** Posts the rows gathered so far as one batch, once a credit is free. */
async function send(): Promise<void> {
  const chunks: ChunkPayload[] = []
  const transfer: ArrayBuffer[] = []
  for (const c of replay.take()) {
    // the chunks' bytes own their ArrayBuffer (ByteBuffer.take, TextEncoder output), so they transfer whole
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
  post({ type: 'batch', chunks, counts: replay.lines.counts() }, transfer)
}

async function main(): Promise<void> {
  for (const file of files) {
    const reader = recordedBlocks(file)
    for await (const block of reader.blocks) {
      if (stopping) break
      for (let i = 0; i < block.length;) {
        i = replay.fill(block, i)
        if (replay.full) await send()
      }
    }
    if (stopping) {
      post({ type: 'end', counts: replay.lines.counts(), complete: false })
      return
    }
    if (reader.error !== null) post({ type: 'truncated', file, error: reader.error })
  }
  if (replay.rows > 0) await send()
  post({ type: 'end', counts: replay.lines.counts(), complete: !stopping })
}

main().catch((err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }))
