/**
 * @module
 * One ingest benchmark run in its own process and data directory (chDB binds one directory per process):
 * `node dist/bench/ingest/variant.js <e2e|naive|ceiling> <dataDir> <days>`. Prints one JSON line.
 *
 * - e2e: Tidewatch's path: records -> TSV in a worker thread -> per-table batcher -> journal -> store.
 * - naive: `client.insert` of JSONEachRow through @clickhouse/client over chDB's connection (the reference
 *   path a first implementation would take; this file is the one place outside engine/store that uses it).
 * - ceiling: the same rows as pre-built TSV batches, inserted straight into the engine through the journal
 *   (on chDB the engine reads each entry file: the store's fastest path).
 * All three write the same rows, in 50,000-row batches, one writer per table, 4 connections, all views on.
 */
import { Worker } from 'node:worker_threads'
import path from 'node:path'
import { createClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { KIND_SPECS, columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { NormalizedRecord, RecordKind, RecordOf } from '../../engine/records/types.js'
import { silentLogger } from '../../engine/log.js'
import { distPath } from '../../engine/paths.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { BatchJournal } from '../../ingest/journal.js'
import { DEDUP_INSERT_SETTINGS } from '../../engine/store/store.js'
import type { EncodedChunk } from '../../ingest/encoded-chunk.js'
import { generateDataset } from './dataset.js'

const BATCH_ROWS = 50_000
const POOL = 4

function byKind(records: readonly NormalizedRecord[]): Map<RecordKind, NormalizedRecord[]> {
  const m = new Map<RecordKind, NormalizedRecord[]>()
  for (const r of records) {
    let g = m.get(r.kind)
    if (!g) m.set(r.kind, (g = []))
    g.push(r)
  }
  return m
}

function slices<T>(rows: readonly T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < rows.length; i += BATCH_ROWS) out.push(rows.slice(i, i + BATCH_ROWS))
  return out
}

async function e2e(dir: string, store: ChdbStore, days: number): Promise<{ rows: number; ms: number }> {
  const pipeline = new IngestPipeline(
    store,
    { batchRows: BATCH_ROWS, flushMs: 1000, queueRows: 500_000 },
    silentLogger(),
    process.env['BENCH_NO_JOURNAL'] ? undefined : new BatchJournal(path.join(dir, 'journal'))
  )
  const worker = new Worker(distPath('bench', 'ingest', 'encode-worker.js'), { workerData: { days } })
  const inbox: any[] = [] // eslint-disable-line @typescript-eslint/no-explicit-any -- worker messages
  let wake: (() => void) | undefined
  worker.on('message', (m) => {
    inbox.push(m)
    wake?.()
  })
  const next = async (): Promise<any> => {
    while (inbox.length === 0) await new Promise<void>((r) => (wake = r))
    return inbox.shift()
  }
  const ready = await next()
  const t0 = performance.now()
  worker.postMessage({ type: 'go' })
  for (;;) {
    const m = await next()
    if (m.type === 'end') break
    await pipeline.write({ ...(m as EncodedChunk), data: new Uint8Array(m.data as ArrayBuffer) })
    worker.postMessage({ type: 'credit', n: 1 })
  }
  await pipeline.barrier()
  const ms = performance.now() - t0
  await worker.terminate()
  const written = pipeline.totals().written
  if (written !== ready.rows) throw new Error(`e2e wrote ${written} of ${ready.rows} rows`)
  return { rows: written, ms }
}

async function ceiling(
  dir: string,
  store: ChdbStore,
  records: NormalizedRecord[]
): Promise<{ rows: number; ms: number }> {
  const batches = [...byKind(records)].map(([kind, rows]) =>
    slices(rows).map((s, i) => ({
      table: KIND_SPECS[kind].table,
      columns: columnsOf(kind),
      format: 'TSV' as const,
      data: Buffer.from(encodeTsv(kind, s as RecordOf<typeof kind>[])),
      dedupToken: `ceiling:${kind}:${i}`
    }))
  )
  // the store's own insert path for journaled batches (the engine reads the entry: Store.insertFile)
  const journal = new BatchJournal(path.join(dir, 'journal'))
  const t0 = performance.now()
  await Promise.all(
    batches.map(async (list) => {
      for (const b of list) await journal.insert(store, b)
    })
  )
  return { rows: records.length, ms: performance.now() - t0 }
}

async function naive(dir: string, records: NormalizedRecord[]): Promise<{ rows: number; ms: number }> {
  // chdb/connection types come from @clickhouse/client-common, the client bundles its own copy: same shape
  const clients = Array.from({ length: POOL }, () =>
    createClient({ connection: createChdbConnection({ path: dir }) as never })
  )
  let turn = 0
  const t0 = performance.now()
  await Promise.all(
    [...byKind(records)].map(async ([kind, rows]) => {
      let i = 0
      for (const s of slices(rows)) {
        const values = s.map(({ kind: _k, ...rest }) => rest)
        await clients[turn++ % POOL]!.insert({
          table: KIND_SPECS[kind].table,
          values,
          format: 'JSONEachRow',
          clickhouse_settings: { ...DEDUP_INSERT_SETTINGS, insert_deduplication_token: `naive:${kind}:${i++}` }
        })
      }
    })
  )
  const ms = performance.now() - t0
  for (const c of clients) await c.close()
  return { rows: records.length, ms }
}

async function main(): Promise<void> {
  const [variant, dir, daysText] = process.argv.slice(2) as [string, string, string]
  const days = Number(daysText)
  const store = new ChdbStore({ path: dir, poolSize: POOL })
  await migrate(store, {})
  let result: { rows: number; ms: number }
  if (variant === 'e2e') result = await e2e(dir, store, days)
  else {
    const records = generateDataset(days)
    if (variant === 'ceiling') result = await ceiling(dir, store, records)
    else {
      await store.close()
      result = await naive(dir, records)
    }
  }
  const [check] = await new ChdbStore({ path: dir, poolSize: 1 }).query<{ n: number }>(
    'SELECT count() AS n FROM trades'
  )
  process.stdout.write(
    JSON.stringify({
      variant,
      rows: result.rows,
      ms: Math.round(result.ms),
      rows_per_s: Math.round(result.rows / (result.ms / 1000)),
      trades_in_store: check!.n
    }) + '\n'
  )
  process.exit(0)
}
void main()
