/**
 * @module
 * One run of the as_of storage benchmark in its own process and data directory (chDB binds one directory per
 * process): `node dist/bench/asof-storage/storage-run.js <event|store> <dataDir> <days>`. Writes `days` of the
 * demo market (backfill density, seed 42, every kind, every view) through the ingest pipeline, merges every
 * table's parts (OPTIMIZE FINAL, as a long-running store ends up), and prints one JSON line: bytes on disk in
 * total, of the known-at ledger (`known_at_1h`), and once the ledger and the `ingest_ts` columns (receive
 * times) are dropped and the parts merged again: the same data stored without what as_of needs. (Per-column
 * sizes of system.parts_columns are not used: compact parts report none.)
 *
 * - event: receive time = event time, written explicitly (the demo backfill's stamps; per row like live
 *   receive times, which trail the event by the feed's latency);
 * - store: receive time stamped by the store per insert (a bulk load's stamps: one value per batch).
 */
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { silentLogger } from '../../engine/log.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { generateDataset } from '../ingest/dataset.js'

/** Records per encoded chunk (as the demo worker). */
const CHUNK = 20_000

/** Merges every table's parts into one per partition, as a long-running store ends up. */
async function optimizeAll(store: ChdbStore): Promise<void> {
  const tables = await store.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree%'`
  )
  for (const t of tables) await store.command(`OPTIMIZE TABLE ${t.name} FINAL`)
}

/** Bytes on disk of the active parts of every table, or of `table`. */
async function bytesOnDisk(store: ChdbStore, table?: string): Promise<number> {
  const [r] = await store.query<{ bytes: number }>(
    `SELECT sum(bytes_on_disk) AS bytes FROM system.parts
     WHERE active AND database = currentDatabase() AND (table = {t:String} OR {t:String} = '')`,
    { t: table ?? '' }
  )
  return Number(r!.bytes)
}

async function main(): Promise<void> {
  const [variant, dir, daysText] = process.argv.slice(2) as ['event' | 'store', string, string]
  const days = Number(daysText)
  const store = new ChdbStore({ path: dir, poolSize: 2 })
  await migrate(store, {})
  const pipeline = new IngestPipeline(
    store,
    { batchRows: 50_000, bulkBatchRows: 250_000, flushMs: 1000, queueRows: 1_000_000 },
    silentLogger()
  )
  const records = generateDataset(days)
  for (let i = 0; i < records.length; i += CHUNK) {
    for (const c of encodeRecords(records.slice(i, i + CHUNK), true, variant)) await pipeline.write(c)
  }
  await pipeline.barrier()
  await optimizeAll(store)
  const total = await bytesOnDisk(store)
  const known = await bytesOnDisk(store, 'known_at_1h')
  const [markets] = await store.query<{ n: number }>('SELECT uniqExact(exchange, symbol) AS n FROM trades')
  // the same data without what as_of needs: the ledger and its views dropped, the receive-time columns too
  const views = await store.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'known\\_at\\_%\\_mv'`
  )
  for (const v of views) await store.command(`DROP VIEW ${v.name}`)
  await store.command('DROP TABLE known_at_1h')
  const receiving = await store.query<{ table: string }>(
    `SELECT table FROM system.columns WHERE database = currentDatabase() AND name = 'ingest_ts'`
  )
  for (const t of receiving) {
    await store.command(`ALTER TABLE ${t.table} DROP COLUMN ingest_ts SETTINGS mutations_sync = 2`)
  }
  await optimizeAll(store)
  const without = await bytesOnDisk(store)
  process.stdout.write(
    JSON.stringify({
      variant,
      days,
      rows: records.length,
      markets: Number(markets!.n),
      total_bytes: total,
      without_asof_bytes: without,
      known_at_bytes: known
    }) + '\n'
  )
  await store.close()
  process.exit(0)
}
void main()
