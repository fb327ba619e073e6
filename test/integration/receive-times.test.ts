/**
 * Receive times (`ingest_ts`) on the write paths that carry old event times: an import of aggTrades is
 * stored with the time it reached the store and the known-at ledger marks its hours late for any earlier
 * `known_by`; klines, written straight into the candle tables, are noted in the ledger too. The demo
 * market's stamps: demo-receive-times.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { lateHours } from '../../engine/asof/known-at.js'
import { columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { useImportStore } from '../helpers/import-store.js'
import { aggTradesCsv, HOUR, klinesCsv, MIN, recentDay, writeCsv, writeZip } from '../helpers/import-files.js'
import { until } from '../helpers/until.js'

const env = useImportStore('tidewatch-receive-times-')
const DAY = recentDay()

/** Latest receive time in the store, epoch ms. */
async function lastIngest(): Promise<number> {
  const [r] = await env.store.query<{ t: number }>('SELECT toUnixTimestamp64Milli(max(ingest_ts)) AS t FROM trades')
  return Number(r!.t)
}

/** Live trades of KNWUSDT at minute 0 of hours 0-2 of DAY, received now (the store stamps them). */
async function liveTrades(): Promise<void> {
  const records: TradeRecord[] = [0, 1, 2].map((h) => ({
    kind: 'trade',
    ts: DAY + h * HOUR,
    exchange: 'binance',
    market: 'perp',
    symbol: 'KNWUSDT',
    base: 'KNW',
    quote: 'USDT',
    side: 'buy',
    price: 100,
    qty: 1,
    trade_id: `live-${h}`
  }))
  await env.store.insert({
    table: 'trades',
    columns: columnsOf('trade'),
    format: 'TSV',
    data: Buffer.from(encodeTsv('trade', records)),
    dedupToken: `receive-times-live-${DAY}`
  })
}

describe('receive times of late arrivals', () => {
  it('stores an import with its own (late) receive time and marks its hours late before it', async () => {
    await liveTrades()
    const known = await lastIngest()
    // the import must reach the store at a later millisecond than `known`
    await until('the clock passes the live rows', () => Date.now() > known)
    const f = writeZip(env.filesDir, 'KNWUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(DAY + HOUR + 10 * MIN, 2, 3))
    const [res] = await env.run([f])
    expect(res).toMatchObject({ rows: 6, tables: ['trades'] })
    const [imported] = await env.store.query<{ n: number; first: number; late: number }>(
      `SELECT count() AS n, toUnixTimestamp64Milli(min(ingest_ts)) AS first,
         countIf(ingest_ts <= fromUnixTimestamp64Milli({k:Int64}, 'UTC')) AS late
       FROM trades WHERE symbol = 'KNWUSDT' AND NOT startsWith(trade_id, 'live-')`,
      { k: known }
    )
    expect(Number(imported!.n)).toBe(6)
    expect(Number(imported!.late)).toBe(0)
    expect(Number(imported!.first)).toBeGreaterThan(known)
    // known by before the import: only the imported hour is late; known by after it: nothing
    expect(await lateHours(env.store, 'trades', DAY, DAY + 3 * HOUR, known)).toEqual([DAY + HOUR])
    expect(await lateHours(env.store, 'trades', DAY, DAY + 3 * HOUR, await lastIngest())).toEqual([])
  })

  it('notes klines (written past the raw tables) in the ledger as received at their import', async () => {
    const before = Date.now()
    await until('the clock moves past the moment noted', () => Date.now() > before)
    const f = writeCsv(env.filesDir, 'KLNUSDT-1m-2024-01-01.csv', klinesCsv(DAY + 5 * HOUR, 3))
    const [res] = await env.run([f])
    expect(res).toMatchObject({ rows: 3, tables: ['candles_1m'] })
    expect(await lateHours(env.store, 'trades', DAY + 5 * HOUR, DAY + 6 * HOUR, before)).toEqual([DAY + 5 * HOUR])
    expect(await lateHours(env.store, 'trades', DAY + 5 * HOUR, DAY + 6 * HOUR, Date.now())).toEqual([])
    // importing the same file again writes no candle and notes nothing new
    const [ledger] = await env.store.query<{ n: number }>(
      `SELECT count() AS n FROM known_at_1h WHERE tbl = 'trades' AND bucket = toDateTime({b:UInt32}, 'UTC')`,
      { b: (DAY + 5 * HOUR) / 1000 }
    )
    await env.run([f])
    const [again] = await env.store.query<{ n: number }>(
      `SELECT count() AS n FROM known_at_1h WHERE tbl = 'trades' AND bucket = toDateTime({b:UInt32}, 'UTC')`,
      { b: (DAY + 5 * HOUR) / 1000 }
    )
    expect(Number(again!.n)).toBe(Number(ledger!.n))
  })
})
