/**
 * @module
 * One replay benchmark run in its own process and data directory (chDB binds one directory per process):
 * `node dist/bench/replay/variant.js <replay|replay_main|ceiling> <dataDir> <capture.ndjson.gz>`. Prints one
 * JSON line.
 *
 * - replay: `SOURCES=replay:<capture>` with REPLAY_SPEED=max, as the server runs it: ReplaySource's worker
 *   thread (gunzip, line parse, Binance normalizer, TSV chunks) -> this thread: per-table batcher ->
 *   journal -> store. Timed from the first read to the last acknowledged batch.
 * - replay_main: the same with every step on the main thread (`thread: 'main'`, the in-thread path).
 * - ceiling: the same trades, normalized and encoded to TSV before the clock starts, inserted in the same
 *   250,000-row batches (the bulk batch size) by one writer (as the batcher writes one table), through the
 *   journal as the pipeline does (the entry is written, then the engine reads it): the engine's own limit.
 * Both write into the full schema (trades feed the candle views).
 */
import path from 'node:path'
import { silentLogger } from '../../engine/log.js'
import { columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { isLiveRecords } from '../../ingest/encoded-chunk.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'

/** the server's default bulk batch (INGEST_BULK_BATCH_ROWS): a replay at full speed is a bulk load */
const BATCH_ROWS = 250_000
const POOL = 4

/** A timed run: rows stored, wall time and process CPU time of the timed part, ms. */
interface Timed {
  rows: number
  ms: number
  cpuMs: number
}

async function replay(dir: string, store: ChdbStore, capture: string, thread: 'worker' | 'main'): Promise<Timed> {
  const pipeline = new IngestPipeline(
    store,
    { batchRows: 50_000, bulkBatchRows: BATCH_ROWS, flushMs: 1000, queueRows: 500_000 },
    silentLogger(),
    new BatchJournal(path.join(dir, 'journal'))
  )
  const source = new ReplaySource({ path: capture, speed: 0, log: silentLogger(), thread })
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  for await (const item of source.items(new AbortController().signal)) await pipeline.push(item)
  await pipeline.barrier()
  const ms = performance.now() - t0
  const cpuMs = cpuSince(cpu0)
  const status = source.status()
  if (status.parse_errors !== 0) throw new Error(`replay had ${status.parse_errors} parse errors`)
  return { rows: pipeline.totals().written, ms, cpuMs }
}

async function ceiling(dir: string, store: ChdbStore, capture: string): Promise<Timed> {
  const trades: TradeRecord[] = []
  const source = new ReplaySource({ path: capture, speed: 0, log: silentLogger(), thread: 'main' })
  for await (const item of source.items(new AbortController().signal)) {
    if (isLiveRecords(item)) for (const r of item.records) if (r.kind === 'trade') trades.push(r)
  }
  const batches: Buffer[] = []
  for (let i = 0; i < trades.length; i += BATCH_ROWS) {
    batches.push(Buffer.from(encodeTsv('trade', trades.slice(i, i + BATCH_ROWS))))
  }
  trades.length = 0
  // the replay's own insert path: each batch journaled, then inserted (by the engine reading the entry) with
  // the settings of the replay's bulk batches (`foldKeys`: optimize_on_insert=1, ingest/table-batcher.ts)
  const journal = new BatchJournal(path.join(dir, 'journal'))
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  let n = 0
  for (const data of batches) {
    await journal.insert(store, {
      table: 'trades',
      columns: columnsOf('trade'),
      format: 'TSV',
      data,
      dedupToken: `ceiling:${n++}`,
      foldKeys: true
    })
  }
  const ms = performance.now() - t0
  const cpuMs = cpuSince(cpu0)
  return { rows: batches.reduce((s, b) => s + countLines(b), 0), ms, cpuMs }
}

/** CPU time of the whole process (every thread: the worker's and the engine's too) since `from`, ms. */
function cpuSince(from: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(from)
  return (c.user + c.system) / 1000
}

function countLines(b: Buffer): number {
  let n = 0
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++
  return n
}

async function main(): Promise<void> {
  const [variant, dir, capture] = process.argv.slice(2) as [string, string, string]
  const store = new ChdbStore({ path: dir, poolSize: POOL })
  await migrate(store, {})
  const elu0 = performance.eventLoopUtilization()
  const cpu0 = process.cpuUsage()
  const result =
    variant === 'replay'
      ? await replay(dir, store, capture, 'worker')
      : variant === 'replay_main'
        ? await replay(dir, store, capture, 'main')
        : await ceiling(dir, store, capture)
  // the main thread's busy share of the run (it should only route and write) and the process CPU
  const mainBusy = performance.eventLoopUtilization(elu0).utilization
  const cpu = process.cpuUsage(cpu0)
  const [check] = await store.query<{ n: number }>('SELECT count() AS n FROM trades')
  process.stdout.write(
    JSON.stringify({
      variant,
      rows: result.rows,
      ms: Math.round(result.ms),
      rows_per_s: Math.round(result.rows / (result.ms / 1000)),
      trades_in_store: Number(check!.n),
      main_thread_busy: Math.round(mainBusy * 100) / 100,
      cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      // the timed part only (the ceiling's TSV is built before its clock starts)
      timed_cpu_ms: Math.round(result.cpuMs)
    }) + '\n'
  )
  process.exit(0)
}
void main()
