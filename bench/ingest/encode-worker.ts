/**
 * @module
 * Benchmark source worker for the end-to-end variant: generates the dataset before the clock starts, then
 * on `go` normalizes (encodes) it into TSV chunks and streams them under the same credit protocol as the
 * demo-market worker. So the measured path is encode (worker) -> batcher -> journal -> store, with views.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { encodeRecords } from '../../ingest/encode-records.js'
import { CREDIT_WINDOW, type MainToWorker } from '../../ingest/workers/protocol.js'
import { generateDataset } from './dataset.js'

const port = parentPort!
const records = generateDataset((workerData as { days: number }).days)
/** Records per chunk, as in the demo-market worker. */
const CHUNK_RECORDS = 20_000
let credits = CREDIT_WINDOW
let wake: (() => void) | undefined
let go: (() => void) | undefined
port.on('message', (msg: MainToWorker | { type: 'go' }) => {
  if (msg.type === 'credit') credits += msg.n
  if (msg.type === 'go') go?.()
  wake?.()
})

async function main(): Promise<void> {
  port.postMessage({ type: 'ready', rows: records.length })
  await new Promise<void>((r) => (go = r))
  for (let i = 0; i < records.length; i += CHUNK_RECORDS) {
    for (const c of encodeRecords(records.slice(i, i + CHUNK_RECORDS), true)) {
      while (credits <= 0) await new Promise<void>((r) => (wake = r))
      credits--
      const data = c.data.buffer as ArrayBuffer
      port.postMessage({ type: 'chunk', ...c, data, maxTs: 0 }, [data])
    }
  }
  port.postMessage({ type: 'end' })
}
void main()
