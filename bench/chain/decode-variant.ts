/**
 * @module
 * One chain decode benchmark run in its own process and data directory (chDB binds one directory per
 * process): `node dist/bench/chain/decode-variant.js <ours|ceiling|mixed|mixedceiling> <dataDir> <transactions>
 * [file|inline]` (mixed: `transactions` = whale transactions of the mix).
 * One JSON line.
 *
 * - ours: recorded receipts (bench/chain/dataset.ts) -> decodeTx (ingest/normalize/chain/evm-decode.ts) ->
 *   per-transaction collapse (engine/whales/tx-events.ts) -> the EVM source's ConfirmedGroup
 *   (ingest/sources/chain/flow-records.ts: chain_whale_events and whale_transfers TSV in one pass, the read
 *   API's details, the net-flow readings; bench/chain/rows.ts), decoded in ranges of BATCH transactions and
 *   written in the source's backfill write groups (bench/chain/rows.ts: one range each at the default
 *   CHAIN_WRITE_EVENTS), each group's inserts awaited before the next range is decoded, as the source's
 *   barrier does; each group's buffers go back to
 *   the sink pool once its inserts settle, as the source does (engine/whales/sink-pool.ts); timed from the
 *   first log decoded to the last insert acknowledged.
 * - ceiling: the same rows built before the clock starts, inserted in the same groups through the same
 *   store calls: the store's own limit for these rows.
 * - mixed / mixedceiling: the same two on a realistic mix (dataset.ts mixedDataset: 19 small USDC transfers
 *   per whale transaction): ours reads each range's eth_getLogs answer through the fetcher's candidate filter
 *   (ingest/sources/chain/evm-fetch.ts candidatesOf), then decodes the candidates' receipts; logs counted are
 *   the getLogs logs plus the receipts' logs.
 * Insert path (`file`, the default, is the service's; `inline` the one before): see `inserter`.
 * Both report logs/s (logs of the dataset over the run's time), the process's CPU-seconds and the same CPU per
 * kind of thread (`cpu_threads_s`: main thread, chDB's store threads, its merges, the other node threads).
 * Prices are a fixed table (the source prepares them with one store query per batch, outside this loop). Ours lets go of each batch of receipts once it is
 * decoded, as the source does with a range's (kept, the whole dataset, ~430 MB of heap, would stay alive to
 * the end and every major GC of the timed run would mark it; the ceiling never decodes).
 */
import path from 'node:path'
import { silentLogger } from '../../engine/log.js'
import type { TxInput } from '../../ingest/normalize/chain/evm-decode.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import type { Store } from '../../engine/store/store.js'
import { CHAIN_EVENT_COLUMNS } from '../../engine/whales/chain-event-store.js'
import { releaseSinkBytes } from '../../engine/whales/sink-pool.js'
import type { EncodedChunk } from '../../ingest/encoded-chunk.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { chainEventsChunk } from '../../ingest/sources/chain/chain-event-rows.js'
import { chainDataset, mixedDataset } from './dataset.js'
import { drain, groupPayloads, mixedRanges, rangesOf, type GroupPayload } from './rows.js'
import { threadCpuBetween, threadSnapshot, type ThreadCpu } from './thread-cpu.js'

type Mode = 'file' | 'inline'
/**
 * ms: wall time; cpuMs: the process's user + system CPU over the same span (all threads: JS and chDB); threads:
 * the same CPU per kind of thread (thread-cpu.ts; null off Linux)
 */
type Run = { logs: number; events: number; ms: number; cpuMs: number; threads: ThreadCpu | null }

/** one group's two tables: chain_whale_events bytes and their line count, the whale_transfers chunk */
interface GroupRows {
  readonly events: Buffer
  readonly eventRows: number
  readonly transfers: EncodedChunk
}

/** the service's ingest settings (engine/config.ts defaults) */
const PIPELINE = { batchRows: 50_000, bulkBatchRows: 250_000, flushMs: 1_000, queueRows: 500_000 }

/**
 * The two inserts of group `n`. `file` is the service's path: both tables through the ingest pipeline with its
 * journal (ingest/pipeline.ts, ingest/journal.ts: each table's batch entry is written, then read by the engine;
 * the two tables' batchers write side by side), then a barrier, as the source's checkpoint waits for.
 * `inline`: both as bytes handed to chDB (kept to measure the difference).
 */
function inserter(store: Store, dir: string, mode: Mode): (rows: GroupRows, n: number) => Promise<unknown> {
  if (mode === 'file') {
    const journal = new BatchJournal(path.join(dir, 'journal'))
    const pipeline = new IngestPipeline(store, PIPELINE, silentLogger(), journal)
    return async (g) => {
      await pipeline.write(chainEventsChunk(g.events, g.eventRows))
      await pipeline.write(g.transfers)
      if (!(await pipeline.barrier())) throw new Error('a batch failed')
    }
  }
  return (g, n) =>
    Promise.all([
      store.insert({
        table: 'chain_whale_events',
        columns: CHAIN_EVENT_COLUMNS,
        format: 'TSV',
        data: g.events,
        dedupToken: `bench:ce:${n}`
      }),
      store.insert({
        table: g.transfers.table,
        columns: g.transfers.columns,
        format: 'TSV',
        data: Buffer.from(g.transfers.data),
        dedupToken: `bench:wt:${n}`
      })
    ])
}

/** a group's rows (every group of these datasets has flow rows) */
function rowsOf(group: GroupPayload): GroupRows {
  const transfers = group.payload.chunks[0]
  if (transfers === undefined) throw new Error('a group without flow rows')
  return { events: group.payload.eventsTsv, eventRows: group.events, transfers }
}

function cpuMsSince(c0: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(c0)
  return (d.user + d.system) / 1000
}

/** the realistic mix: small transfers per whale transaction (bench/chain/dataset.ts mixedDataset) */
const FILLER_PER_WHALE = 19

/** what a variant reads: its ranges (each let go once decoded) and the logs they hold */
interface Workload {
  readonly ranges: Iterable<TxInput[]>
  readonly logs: number
}

/**
 * `ours`/`ceiling`: the worst case, every log whale-sized, `count` transactions in ranges of BATCH;
 * `mixed`/`mixedceiling`: the realistic mix around `count` whale transactions, read as the source reads it
 * (eth_getLogs answer through the candidate filter, then the candidates' receipts). No reference to the whole
 * dataset is kept: each range goes once decoded.
 */
function workload(variant: string, count: number): Workload {
  if (variant.startsWith('mixed')) {
    const data = mixedDataset(count, FILLER_PER_WHALE)
    const logs = data.logs.length + data.receiptLogs
    return { ranges: mixedRanges(data), logs }
  }
  const { inputs, logs } = chainDataset(count)
  return { ranges: drain(rangesOf(inputs)), logs }
}

async function ours(store: Store, dir: string, mode: Mode, work: Workload): Promise<Run> {
  const insert = inserter(store, dir, mode)
  let events = 0
  let n = 0
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const s0 = threadSnapshot()
  // in the source's order: a group's inserts are awaited (its checkpoint barrier) before the next range is
  // decoded. Keeping one batch's inserts in flight while the next is decoded is no faster: with two-range
  // write groups it keeps two groups' buffers alive and V8 answers with a full mark-compact: 161,497 against
  // 167,491 logs/s in alternating runs (docs/sources.md, "Decode path, 2026-11-24: where the remaining time goes")
  for (const group of groupPayloads(work.ranges)) {
    events += group.events
    await insert(rowsOf(group), n++)
    // stored: both buffers serve the next groups' encoders, as the source hands back a group's (sink-pool.ts)
    releaseSinkBytes(group.payload.eventsTsv)
    releaseSinkBytes(group.payload.transfersTsv)
  }
  const ms = performance.now() - t0
  const cpuMs = cpuMsSince(c0)
  return { logs: work.logs, events, ms, cpuMs, threads: threadCpuBetween(s0, threadSnapshot()) }
}

async function ceiling(store: Store, dir: string, mode: Mode, work: Workload): Promise<Run> {
  const insert = inserter(store, dir, mode)
  const groups: GroupRows[] = []
  let events = 0
  for (const group of groupPayloads(work.ranges)) {
    events += group.events
    groups.push(rowsOf(group))
  }
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const s0 = threadSnapshot()
  let inflight: Promise<unknown> = Promise.resolve()
  for (let n = 0; n < groups.length; n++) {
    await inflight
    inflight = insert(groups[n]!, n)
  }
  await inflight
  const ms = performance.now() - t0
  const cpuMs = cpuMsSince(c0)
  return { logs: work.logs, events, ms, cpuMs, threads: threadCpuBetween(s0, threadSnapshot()) }
}

async function main(): Promise<void> {
  const [variant, dir, count, modeArg] = process.argv.slice(2) as [string, string, string, string | undefined]
  const mode: Mode = modeArg === 'inline' ? 'inline' : 'file'
  const store = new ChdbStore({ path: path.join(dir, 'db'), poolSize: 4 })
  await migrate(store, {})
  const work = workload(variant, Number(count))
  const r = await (variant === 'ours' || variant === 'mixed' ? ours : ceiling)(store, dir, mode, work)
  const [check] = await store.query<{ n: number; t: number }>(
    'SELECT (SELECT count() FROM chain_whale_events) AS n, (SELECT count() FROM whale_transfers) AS t'
  )
  process.stdout.write(
    JSON.stringify({
      variant,
      mode,
      logs: r.logs,
      events: r.events,
      events_in_store: Number(check!.n),
      transfers_in_store: Number(check!.t),
      ms: Math.round(r.ms),
      logs_per_s: Math.round(r.logs / (r.ms / 1000)),
      cpu_s: Math.round(r.cpuMs) / 1000,
      logs_per_cpu_s: Math.round(r.logs / (r.cpuMs / 1000)),
      cpu_threads_s: r.threads
    }) + '\n'
  )
  process.exit(0)
}
void main()
