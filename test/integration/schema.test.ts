import fs from 'node:fs'
import path from 'node:path'
import { describe, it, expect } from 'vitest'
import { migrate, readSchemaFiles, schemaDir, MigrationError } from '../../engine/schema/migrate.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import { columnsOf, KIND_SPECS } from '../../engine/records/fields.js'
import type { TradeRecord, FundingRecord, WhaleTransferRecord } from '../../engine/records/types.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const db = useMigratedStore()

const T0 = Date.UTC(2026, 10, 2, 10, 0, 0) // a Monday, 10:00 UTC

function trades(n: number, seed: number): TradeRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'trade',
    ts: T0 + i * 7_000 + seed,
    exchange: 'binance',
    market: 'perp',
    symbol: 'BTCUSDT',
    base: 'BTC',
    quote: 'USDT',
    side: i % 3 === 0 ? 'sell' : 'buy',
    price: 100 + ((i * 37 + seed) % 50),
    qty: 1 + (i % 4),
    trade_id: `${seed}-${i}`
  }))
}

async function insertTrades(rows: TradeRecord[], token: string): Promise<void> {
  await db.store.insert({
    table: 'trades',
    columns: columnsOf('trade'),
    format: 'TSV',
    data: Buffer.from(encodeTsv('trade', rows)),
    dedupToken: token
  })
}

const CANDLE_TABLES = ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1mo'].map((t) => `candles_${t}`)

async function candleTotals(): Promise<Record<string, { trades: number; vol: number }>> {
  const out: Record<string, { trades: number; vol: number }> = {}
  for (const t of CANDLE_TABLES) {
    const [row] = await db.store.query<{ trades: number; vol: number }>(
      `SELECT sum(trades) AS trades, round(sum(volume_base), 6) AS vol FROM ${t}`
    )
    out[t] = row!
  }
  return out
}

describe('schema migrations', () => {
  it('creates a raw table for every record kind with the encoder column order', async () => {
    for (const spec of Object.values(KIND_SPECS)) {
      const cols = await db.store.query<{ name: string }>(
        'SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String} ORDER BY position',
        { t: spec.table }
      )
      expect(cols.map((c) => c.name).filter((n) => n !== 'ingest_ts')).toEqual(spec.fields.map((f) => f.name))
    }
  })

  it('records each applied file and applies nothing twice', async () => {
    const rows = await db.store.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version')
    expect(rows.map((r) => r.name)).toEqual(readSchemaFiles().map((f) => f.name))
    expect(await migrate(db.store, {})).toEqual([])
  })

  it('refuses a file that changed after it was applied', async () => {
    const dir = path.join(db.dir, 'schemas-copy')
    fs.mkdirSync(dir)
    for (const f of fs.readdirSync(schemaDir()).filter((n) => n.endsWith('.sql'))) {
      fs.copyFileSync(path.join(schemaDir(), f), path.join(dir, f))
    }
    fs.appendFileSync(path.join(dir, '001_raw_tables.sql'), '\n-- edited\n')
    await expect(migrate(db.store, {}, dir)).rejects.toBeInstanceOf(MigrationError)
  })
})

describe('materialized views', () => {
  it('cascade candles so every level agrees with the raw trades', async () => {
    const rows = trades(2000, 1)
    await insertTrades(rows, 'cascade-1')
    const [raw] = await db.store.query<{ n: number; o: number; c: number; h: number; l: number }>(
      "SELECT count() AS n, argMin(price, ts) AS o, argMax(price, ts) AS c, max(price) AS h, min(price) AS l FROM trades WHERE symbol = 'BTCUSDT'"
    )
    const [daily] = await db.store.query<{ n: number; o: number; c: number; h: number; l: number }>(
      `SELECT sum(trades) AS n, argMinMerge(open) AS o, argMaxMerge(close) AS c, max(high) AS h, min(low) AS l
       FROM candles_1mo WHERE symbol = 'BTCUSDT'`
    )
    expect(daily).toEqual(raw)
    const hourly = await db.store.query<{ bucket: string; o: number; c: number; n: number }>(
      `SELECT toString(bucket) AS bucket, argMinMerge(open) AS o, argMaxMerge(close) AS c, sum(trades) AS n
       FROM candles_1h WHERE symbol = 'BTCUSDT' GROUP BY bucket ORDER BY bucket`
    )
    const direct = await db.store.query<{ bucket: string; o: number; c: number; n: number }>(
      `SELECT toString(toStartOfHour(ts)) AS bucket, argMin(price, ts) AS o, argMax(price, ts) AS c, count() AS n
       FROM trades WHERE symbol = 'BTCUSDT' GROUP BY bucket ORDER BY bucket`
    )
    expect(hourly).toEqual(direct)
  })

  it('never double-count any level when a batch is retried with its token', async () => {
    const before = await candleTotals()
    const rows = trades(500, 2)
    await insertTrades(rows, 'retry-token-2')
    const once = await candleTotals()
    await insertTrades(rows, 'retry-token-2')
    await insertTrades(rows, 'retry-token-2')
    const after = await candleTotals()
    expect(after).toEqual(once)
    for (const t of CANDLE_TABLES) expect(once[t]!.trades - before[t]!.trades).toBe(500)
  })

  it('roll funding per hour and day, and whale flows per hour and day, without double counting', async () => {
    const funding: FundingRecord[] = Array.from({ length: 48 }, (_, i) => ({
      kind: 'funding',
      ts: T0 + i * 30 * 60_000,
      exchange: 'bybit',
      symbol: 'ETHUSDT',
      base: 'ETH',
      funding_rate: 0.0001 * (i % 5),
      interval_hours: 8,
      next_funding_ts: null,
      mark_price: 3000,
      index_price: null
    }))
    const whales: WhaleTransferRecord[] = Array.from({ length: 30 }, (_, i) => ({
      kind: 'whale_transfer',
      ts: T0 + i * 60_000,
      chain: 'ethereum',
      tx_hash: `0x${i.toString(16).padStart(64, '0')}`,
      log_index: 0,
      block_number: 100 + i,
      address: '0xabc',
      counterparty: '0xdef',
      event_type: i % 2 === 0 ? 'transfer_in' : 'transfer_out',
      token: 'USDT',
      amount: 1e6,
      usd_value: 1e6
    }))
    for (let attempt = 0; attempt < 2; attempt++) {
      await db.store.insert({
        table: 'funding',
        columns: columnsOf('funding'),
        format: 'TSV',
        data: Buffer.from(encodeTsv('funding', funding)),
        dedupToken: 'funding-1'
      })
      await db.store.insert({
        table: 'whale_transfers',
        columns: columnsOf('whale_transfer'),
        format: 'TSV',
        data: Buffer.from(encodeTsv('whale_transfer', whales)),
        dedupToken: 'whales-1'
      })
    }
    const [f1h] = await db.store.query<{ n: number; buckets: number }>(
      "SELECT sum(samples) AS n, uniqExact(bucket) AS buckets FROM funding_1h WHERE symbol = 'ETHUSDT'"
    )
    expect(f1h).toEqual({ n: 48, buckets: 24 })
    const [f1d] = await db.store.query<{ n: number; avg: number }>(
      "SELECT sum(samples) AS n, round(avgMerge(rate_avg), 10) AS avg FROM funding_1d WHERE symbol = 'ETHUSDT'"
    )
    expect(f1d!.n).toBe(48)
    expect(f1d!.avg).toBeCloseTo(funding.reduce((a, r) => a + r.funding_rate, 0) / 48, 10)
    const flows = await db.store.query<{ event_type: string; events: number; usd_in: number; usd_out: number }>(
      `SELECT toString(event_type) AS event_type, sum(events) AS events, sum(usd_in) AS usd_in, sum(usd_out) AS usd_out
       FROM whale_flows_1d WHERE chain = 'ethereum' GROUP BY event_type ORDER BY event_type`
    )
    expect(flows).toEqual([
      { event_type: 'transfer_in', events: 15, usd_in: 15e6, usd_out: 0 },
      { event_type: 'transfer_out', events: 15, usd_in: 0, usd_out: 15e6 }
    ])
  })
})
