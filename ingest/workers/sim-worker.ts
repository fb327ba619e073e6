/**
 * @module
 * Worker thread of the demo market: generates records, encodes them to TSV chunks and sends them to the
 * main thread under credit-based flow control. Time is cut into fixed windows (backfill slices, then
 * 1-second live windows, both aligned to the clock) with a barrier after each, so the batches written for a
 * window are a pure function of (seed, window): after a crash the same window is regenerated into
 * byte-identical batches and the store's dedup tokens make the repeat a no-op.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createSimMarket, type SimMode } from '../sources/sim/sim-market.js'
import type { NormalizedRecord, OptionQuoteRecord } from '../../engine/records/types.js'
import { encodeRecords } from '../encode-records.js'
import { deriveOptionsMetrics } from '../derive/options-metrics.js'
import type { EncodedChunk } from '../encoded-chunk.js'
import { CREDIT_WINDOW, type MainToWorker, type WorkerToMain } from './protocol.js'
import type { SimWorkerData } from './sim-worker-data.js'

const port = parentPort!
const cfg = workerData as SimWorkerData
/** Records accumulated before encoding one chunk: large enough to amortize messaging, small enough to stream. */
const CHUNK_RECORDS = 20_000

let credits = CREDIT_WINDOW
let stopping = false
let wake: (() => void) | undefined

port.on('message', (msg: MainToWorker) => {
  if (msg.type === 'credit') credits += msg.n
  else stopping = true
  wake?.()
})

function post(msg: WorkerToMain, transfer: ArrayBuffer[] = []): void {
  port.postMessage(msg, transfer)
}

/**
 * Waits for a credit. Chunks and barriers both take one, so the channel is bounded. A stop request is
 * honoured between windows only: a window is always sent whole with its barrier, never cut short.
 */
async function credit(): Promise<void> {
  while (credits <= 0) await new Promise<void>((r) => (wake = r))
  credits--
}

async function barrier(doneTo: number, phase: SimMode): Promise<void> {
  await credit()
  post({ type: 'barrier', doneTo, phase })
}

async function send(chunk: EncodedChunk, maxTs: number): Promise<void> {
  await credit()
  const u8 = chunk.data
  const data = u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength ? u8.buffer : u8.slice().buffer
  post({ type: 'chunk', ...chunk, data: data as ArrayBuffer, maxTs }, [data as ArrayBuffer])
}

const market = createSimMarket(cfg.seed, cfg.maxMarkets)

/**
 * Generates one window and sends its chunks; option quotes also yield the derived metrics rows. Live
 * windows also send their decoded records for the in-memory live state (backfill windows do not: the
 * live state reloads from the store when the backfill ends).
 */
async function window(from: number, to: number, mode: SimMode): Promise<void> {
  let pending: NormalizedRecord[] = []
  const quotes: OptionQuoteRecord[] = []
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return
    let maxTs = 0
    for (const r of pending) if (r.ts > maxTs) maxTs = r.ts
    // the backfill stands for a market that ran live: each row received at its own event time
    for (const c of encodeRecords(pending, true, mode === 'backfill' ? 'event' : 'store')) await send(c, maxTs)
    if (mode === 'live') {
      await credit()
      post({ type: 'records', records: pending })
    }
    pending = []
  }
  for (const records of market.generate(from, to, mode)) {
    for (const r of records) {
      pending.push(r)
      if (r.kind === 'option_quote') quotes.push(r)
    }
    if (pending.length >= CHUNK_RECORDS) await flush()
  }
  await flush()
  for (const c of deriveOptionsMetrics(quotes, true)) await send(c, to - 1)
}

async function main(): Promise<void> {
  let t = cfg.doneTo
  while (t < cfg.liveFrom && !stopping) {
    // windows end on multiples of the slice from the epoch, not counted from the backfill's start: an hour
    // lies in the same window, so in the same batches, whatever the backfill's length, and the float sums of
    // its aggregates (volumes) are added in the same order (the stored candles do not depend on it)
    const end = Math.min((Math.floor(t / cfg.backfillSliceMs) + 1) * cfg.backfillSliceMs, cfg.liveFrom)
    await window(t, end, 'backfill')
    await barrier(end, 'backfill')
    t = end
  }
  while (!stopping) {
    const now = Math.floor(Date.now() / 1000) * 1000
    if (t >= now) {
      await new Promise<void>((r) => {
        wake = r
        setTimeout(r, t + 1000 - Date.now())
      })
      continue
    }
    // after a long stop, regenerate what may have been written, then skip ahead (the gap stays a gap)
    if (now - t > cfg.maxCatchupMs && t > cfg.doneTo + cfg.replayMs) t = now - cfg.maxCatchupMs
    await window(t, t + 1000, 'live')
    t += 1000
    await barrier(t, 'live')
  }
  post({ type: 'end' })
}

main().catch((err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }))
