/**
 * @module
 * Where the chain store ceiling's time goes (docs/sources.md "Benchmarks"): one process, one data
 * directory, `node dist/bench/chain/store-probe.js <dataDir> <transactions>`. Builds the decode benchmark's
 * rows (bench/chain/dataset.ts, same write groups), then times, per step, every batch inserted into a fresh copy
 * of one table: chain_whale_events alone, whale_transfers (with its two flow views) alone, a plain
 * MergeTree with the events' columns, the same without codecs, a Null table (parsing only), whale_transfers
 * without its views, with the hourly flow view alone and the same without its wallet count, each
 * through the inline insert (bytes handed to chDB) and through `insertFile` (the engine reads a TSV file), wall
 * time and the process's CPU; then both tables' inserts of each group one after the other and at once; then
 * reports rows, parts and partitions per insert from system.parts. Prints one JSON line; a diagnostic, not a
 * registered benchmark (no target).
 */
import fs from 'node:fs'
import path from 'node:path'
import { columnsOf } from '../../engine/records/fields.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { CHAIN_EVENT_COLUMNS } from '../../engine/whales/chain-event-store.js'
import { chainDataset } from './dataset.js'
import { drain, groupPayloads, rangesOf } from './rows.js'

/**
 * The SELECT of schemas/004's whale_flows_1h_mv over `table`, with `wallets` for its wallet-count column (the
 * view's own text, so the probe's copy costs what the service's view costs)
 */
function hourlyFlows(table: string, wallets: string): string {
  return `SELECT chain, token, event_type, toStartOfHour(ts) AS bucket,
    count() AS events, sum(amount) AS amount, sum(usd_value) AS usd_total,
    sumIf(usd_value, event_type = 'transfer_in') AS usd_in, sumIf(usd_value, event_type = 'transfer_out') AS usd_out
    ${wallets}
    FROM ${table} GROUP BY chain, token, event_type, bucket`
}

interface Step {
  readonly table: string
  readonly columns: readonly string[]
  readonly payload: 'events' | 'transfers'
}

async function main(): Promise<void> {
  const [dir, count] = process.argv.slice(2) as [string, string]
  const store = new ChdbStore({ path: dir, poolSize: 4 })
  await migrate(store, {})
  const { inputs, logs } = chainDataset(Number(count))
  const batches: Array<{ events: Buffer; transfers: Buffer; nEvents: number; nTransfers: number }> = []
  for (const { events, payload } of groupPayloads(drain(rangesOf(inputs)))) {
    batches.push({
      events: payload.eventsTsv,
      transfers: payload.transfersTsv,
      nEvents: events,
      nTransfers: payload.chunks[0]!.rows
    })
  }
  // fresh copies so every step starts from an empty table (the views stay on whale_transfers only)
  await store.command('CREATE TABLE ce_copy AS chain_whale_events')
  await store.command(
    `CREATE TABLE ce_plain AS chain_whale_events ENGINE = MergeTree ORDER BY (chain, tx_hash, log_index, address)`
  )
  // the same columns without their codecs (CREATE AS SELECT keeps types only), and the parse alone (Null)
  await store.command(
    `CREATE TABLE ce_lz4 ENGINE = MergeTree ORDER BY (chain, tx_hash, log_index, address)
     AS SELECT * FROM chain_whale_events WHERE 0`
  )
  await store.command('CREATE TABLE ce_null AS chain_whale_events ENGINE = Null')
  // whale_transfers without its flow views (a copy has no view attached)
  await store.command('CREATE TABLE wt_noviews AS whale_transfers')
  // whale_transfers with the hourly flow view alone (the daily one is fed from it), and the same view without its
  // wallet count (uniqState(address): the aggregate table's column keeps its empty default)
  for (const [table, wallets] of [
    ['wt_hourly', ', uniqState(address) AS wallets'],
    ['wt_hourly_nouniq', '']
  ] as const) {
    await store.command(`CREATE TABLE ${table} AS whale_transfers`)
    await store.command(`CREATE TABLE ${table}_flows AS whale_flows_1h`)
    await store.command(`CREATE MATERIALIZED VIEW ${table}_mv TO ${table}_flows AS ${hourlyFlows(table, wallets)}`)
  }
  const steps: Step[] = [
    { table: 'chain_whale_events', columns: CHAIN_EVENT_COLUMNS, payload: 'events' },
    { table: 'ce_copy', columns: CHAIN_EVENT_COLUMNS, payload: 'events' },
    { table: 'ce_plain', columns: CHAIN_EVENT_COLUMNS, payload: 'events' },
    { table: 'ce_lz4', columns: CHAIN_EVENT_COLUMNS, payload: 'events' },
    { table: 'ce_null', columns: CHAIN_EVENT_COLUMNS, payload: 'events' },
    { table: 'whale_transfers', columns: columnsOf('whale_transfer'), payload: 'transfers' },
    { table: 'wt_noviews', columns: columnsOf('whale_transfer'), payload: 'transfers' },
    { table: 'wt_hourly', columns: columnsOf('whale_transfer'), payload: 'transfers' },
    { table: 'wt_hourly_nouniq', columns: columnsOf('whale_transfer'), payload: 'transfers' }
  ]
  const tmp = path.join(dir, 'probe-tsv')
  fs.mkdirSync(tmp, { recursive: true })
  const result: Record<string, unknown> = {
    logs,
    batches: batches.length,
    events: batches.reduce((s, b) => s + b.nEvents, 0),
    transfers: batches.reduce((s, b) => s + b.nTransfers, 0),
    tsv_bytes: {
      events: batches.reduce((s, b) => s + b.events.length, 0),
      transfers: batches.reduce((s, b) => s + b.transfers.length, 0)
    }
  }
  const timing: Record<string, number> = {}
  let token = 0
  for (const s of steps) {
    for (const mode of ['inline', 'file'] as const) {
      if (s.table === 'chain_whale_events' && mode === 'file') continue
      if (s.table !== 'ce_null') await store.command(`TRUNCATE TABLE ${s.table}`)
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      for (const b of batches) {
        const data = b[s.payload]
        const dedupToken = `probe:${token++}`
        if (mode === 'inline') {
          await store.insert({ table: s.table, columns: s.columns, format: 'TSV', data, dedupToken })
        } else {
          const file = path.join(tmp, `${token}.tsv`)
          fs.writeFileSync(file, data)
          await store.insertFile!({ table: s.table, columns: s.columns, format: 'TSV', file, skipLines: 0, dedupToken })
        }
      }
      timing[`${s.table}:${mode}_ms`] = Math.round(performance.now() - t0)
      const cpu = process.cpuUsage(c0)
      // the process's CPU over the step (parsing, views, part writing, and whatever merges ran meanwhile)
      timing[`${s.table}:${mode}_cpu_ms`] = Math.round((cpu.user + cpu.system) / 1000)
    }
  }
  // both tables' inserts of each group one after the other, then at once (as the source writes them), from files
  const files = batches.map((b, i) => {
    const events = path.join(tmp, `pair-e${i}.tsv`)
    const transfers = path.join(tmp, `pair-t${i}.tsv`)
    fs.writeFileSync(events, b.events)
    fs.writeFileSync(transfers, b.transfers)
    return { events, transfers }
  })
  const insertOf = (table: string, columns: readonly string[], file: string) => () =>
    store.insertFile!({ table, columns, format: 'TSV', file, skipLines: 0, dedupToken: `probe:${token++}` })
  for (const order of ['sequential', 'concurrent'] as const) {
    await store.command('TRUNCATE TABLE chain_whale_events')
    await store.command('TRUNCATE TABLE whale_transfers')
    const t0 = performance.now()
    const c0 = process.cpuUsage()
    for (const f of files) {
      const events = insertOf('chain_whale_events', CHAIN_EVENT_COLUMNS, f.events)
      const transfers = insertOf('whale_transfers', columnsOf('whale_transfer'), f.transfers)
      if (order === 'sequential') {
        await events()
        await transfers()
      } else await Promise.all([events(), transfers()])
    }
    const cpu = process.cpuUsage(c0)
    timing[`both_tables:${order}_ms`] = Math.round(performance.now() - t0)
    timing[`both_tables:${order}_cpu_ms`] = Math.round((cpu.user + cpu.system) / 1000)
  }
  result['timing'] = timing
  result['parts'] = await store.query(
    `SELECT table, count() AS parts, uniqExact(partition) AS partitions, sum(rows) AS rows
     FROM system.parts WHERE active AND database = currentDatabase() GROUP BY table ORDER BY table`
  )
  process.stdout.write(JSON.stringify(result) + '\n')
  process.exit(0)
}
void main()
