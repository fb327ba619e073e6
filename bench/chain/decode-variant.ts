/**
 * @module
 * One chain decode benchmark run in its own process and data directory (chDB binds one directory per
 * process): `node dist/bench/chain/decode-variant.js <ours|ceiling> <dataDir> <transactions>`. One JSON line.
 *
 * - ours: recorded receipts (bench/chain/dataset.ts) -> decodeTx (ingest/normalize/chain/evm-decode.ts) ->
 *   per-transaction collapse (engine/whales/tx-events.ts) -> chain_whale_events rows (writeChainEvents,
 *   TSV) and whale_transfers rows (TSV, feeding the flow views of schemas/004), in batches of BATCH
 *   transactions; timed from the first log decoded to the last insert acknowledged.
 * - ceiling: the same rows built before the clock starts, inserted in the same batches through the same
 *   store calls: the store's own limit for these rows.
 * Both report logs/s (logs of the dataset over the run's time). Prices are a fixed table (the source prepares
 * them with one store query per batch, outside this loop).
 */
import { columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { WhaleTransferRecord } from '../../engine/records/types.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import type { Store } from '../../engine/store/store.js'
import { CHAIN_EVENT_COLUMNS, chainEventsTsv, writeChainEvents } from '../../engine/whales/chain-event-store.js'
import { chainDataset } from './dataset.js'
import { BATCH, collapse } from './rows.js'

async function insertTransfers(store: Store, records: readonly WhaleTransferRecord[], n: number): Promise<void> {
  if (records.length === 0) return
  await store.insert({
    table: 'whale_transfers',
    columns: columnsOf('whale_transfer'),
    format: 'TSV',
    data: Buffer.from(encodeTsv('whale_transfer', records)),
    dedupToken: `bench:wt:${n}`
  })
}

async function ours(store: Store, txs: number): Promise<{ logs: number; events: number; ms: number }> {
  const { inputs, logs } = chainDataset(txs)
  let events = 0
  const t0 = performance.now()
  // one batch's inserts in flight while the next is decoded (the ingest pipeline overlaps the same way)
  let inflight: Promise<unknown> = Promise.resolve()
  for (let i = 0, n = 0; i < inputs.length; i += BATCH, n++) {
    const out = collapse(inputs.slice(i, i + BATCH))
    events += out.events.length
    await inflight
    inflight = Promise.all([
      writeChainEvents(store, out.events, 'confirmed', 1),
      insertTransfers(store, out.records, n)
    ])
  }
  await inflight
  return { logs, events, ms: performance.now() - t0 }
}

async function ceiling(store: Store, txs: number): Promise<{ logs: number; events: number; ms: number }> {
  const { inputs, logs } = chainDataset(txs)
  const batches: Array<{ events: Buffer; transfers: Buffer }> = []
  let events = 0
  for (let i = 0; i < inputs.length; i += BATCH) {
    const out = collapse(inputs.slice(i, i + BATCH))
    events += out.events.length
    batches.push({
      events: chainEventsTsv(out.events, 'confirmed', 1),
      transfers: Buffer.from(encodeTsv('whale_transfer', out.records))
    })
  }
  const t0 = performance.now()
  let n = 0
  let inflight: Promise<unknown> = Promise.resolve()
  for (const b of batches) {
    await inflight
    inflight = Promise.all([
      store.insert({
        table: 'chain_whale_events',
        columns: CHAIN_EVENT_COLUMNS,
        format: 'TSV',
        data: b.events,
        dedupToken: `bench:ce:${n}`
      }),
      store.insert({
        table: 'whale_transfers',
        columns: columnsOf('whale_transfer'),
        format: 'TSV',
        data: b.transfers,
        dedupToken: `bench:wt:${n}`
      })
    ])
    n++
  }
  await inflight
  return { logs, events, ms: performance.now() - t0 }
}

async function main(): Promise<void> {
  const [variant, dir, count] = process.argv.slice(2) as [string, string, string]
  const store = new ChdbStore({ path: dir, poolSize: 4 })
  await migrate(store, {})
  const r = variant === 'ours' ? await ours(store, Number(count)) : await ceiling(store, Number(count))
  const [check] = await store.query<{ n: number }>('SELECT count() AS n FROM chain_whale_events')
  process.stdout.write(
    JSON.stringify({
      variant,
      logs: r.logs,
      events: r.events,
      events_in_store: Number(check!.n),
      ms: Math.round(r.ms),
      logs_per_s: Math.round(r.logs / (r.ms / 1000))
    }) + '\n'
  )
  process.exit(0)
}
void main()
