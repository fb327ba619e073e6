/**
 * History import of data.binance.vision files into a real chDB store: aggTrades (futures and spot, headered
 * or not, ms or µs times), fundingRate and metrics map to the right rows; klines fill only buckets without
 * trades (and trades skip buckets filled by klines), 1h klines write their cascade; importing a file twice, or
 * an overlapping one, changes nothing. Tardis.dev files: import-tardis.test.ts; bad input:
 * import-bad-input.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { Params } from '../../engine/store/store.js'
import { firstRow, useImportStore } from '../helpers/import-store.js'
import { aggTradesCsv, HOUR, klinesCsv, MIN, recentDay, writeCsv, writeZip } from '../helpers/import-files.js'

const env = useImportStore('tidewatch-import-files-')
const DAY = recentDay()
const one = <T>(sql: string, params?: Params): Promise<T> => firstRow<T>(env.store, sql, params)

async function candles1m(symbol: string): Promise<{ n: number; trades: number; volume: number }> {
  return one(
    `SELECT count() AS n, sum(t) AS trades, round(sum(v), 6) AS volume FROM (SELECT bucket, sum(trades) AS t, sum(volume_base) AS v
     FROM candles_1m WHERE symbol = {s:String} GROUP BY base, exchange, symbol, bucket)`,
    { s: symbol }
  )
}

describe('data.binance.vision aggTrades', () => {
  it('maps a futures zip to trades with taker sides, base/quote from the symbol, and 1m candles', async () => {
    const f = writeZip(env.filesDir, `AAAUSDT-aggTrades-x.zip`.replace('x', '2024-01-01'), aggTradesCsv(DAY, 3, 4), {
      checksum: 'good'
    })
    const [res] = await env.run([f])
    expect(res).toMatchObject({ rows: 12, checksum: true, tables: ['trades'], from: DAY, to: DAY + 2 * MIN + 3000 })
    const row = await one<Record<string, unknown>>(
      `SELECT toUnixTimestamp64Milli(ts) AS ts, exchange, market, base, quote, side, price, qty, trade_id
       FROM trades WHERE symbol = 'AAAUSDT' ORDER BY ts LIMIT 1`
    )
    // is_buyer_maker=true: the buyer rested, the taker sold
    expect(row).toEqual({
      ts: DAY,
      exchange: 'binance',
      market: 'perp',
      base: 'AAA',
      quote: 'USDT',
      side: 'sell',
      price: 100,
      qty: 0.01,
      trade_id: '1000'
    })
    expect(await candles1m('AAAUSDT')).toEqual({ n: 3, trades: 12, volume: 0.3 })
  })

  it('reads headerless spot files with microsecond times as spot trades of binance-spot', async () => {
    const csv = aggTradesCsv(DAY, 2, 3, { header: false, micros: true })
      .split('\n')
      .map((l) => (l ? `${l},true` : l))
      .join('\n')
    const f = writeCsv(env.filesDir, 'BBBUSDC-aggTrades-2024-01-01.csv', csv)
    await env.run([f])
    const r = await one<{ n: number; first: number; market: string; exchange: string; quote: string }>(
      `SELECT count() AS n, min(toUnixTimestamp64Milli(ts)) AS first, any(market) AS market, any(exchange) AS exchange, any(quote) AS quote
       FROM trades WHERE symbol = 'BBBUSDC'`
    )
    expect(r).toEqual({ n: 6, first: DAY, market: 'spot', exchange: 'binance-spot', quote: 'USDC' })
  })

  it('importing the same file twice, or an overlapping one, changes nothing', async () => {
    const csv = aggTradesCsv(DAY + HOUR, 5, 3)
    const f = writeZip(env.filesDir, 'CCCUSDT-aggTrades-2024-01-01.zip', csv)
    await env.run([f])
    const before = {
      trades: await one('SELECT count() AS n FROM trades WHERE symbol = {s:String}', { s: 'CCCUSDT' }),
      candles: await candles1m('CCCUSDT')
    }
    await env.run([f])
    // a different file (another name and compression) holding the same minutes
    await env.run([writeCsv(env.filesDir, 'CCCUSDT-aggTrades-2024-01.csv', csv)])
    const after = {
      trades: await one('SELECT count() AS n FROM trades WHERE symbol = {s:String}', { s: 'CCCUSDT' }),
      candles: await candles1m('CCCUSDT')
    }
    expect(after).toEqual(before)
    expect(before.candles).toEqual({ n: 5, trades: 15, volume: 0.3 })
  })
})

describe('klines and trades precedence', () => {
  it('klines fill only minutes without trades; trades imported later skip kline minutes', async () => {
    // trades for minutes 0-2 of the hour
    await env.run([writeZip(env.filesDir, 'DDDUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(DAY + 2 * HOUR, 3, 2))])
    // klines for minutes 0-9: only 3-9 are written
    await env.run([writeZip(env.filesDir, 'DDDUSDT-1m-2024-01-01.zip', klinesCsv(DAY + 2 * HOUR, 10))])
    const c = await one<{ n: number; trades: number; opens: number }>(
      `SELECT count() AS n, sum(t) AS trades, countIf(o = 200) AS opens FROM (
         SELECT bucket, sum(trades) AS t, argMinMerge(open) AS o FROM candles_1m WHERE symbol = 'DDDUSDT' GROUP BY bucket)`
    )
    expect(c).toEqual({ n: 10, trades: 3 * 2 + 7 * 7, opens: 7 })
    // the hour candle is the sum of both, each minute once
    const h = await one<{ trades: number; high: number }>(
      `SELECT sum(trades) AS trades, max(high) AS high FROM candles_1h WHERE symbol = 'DDDUSDT'`
    )
    expect(h).toEqual({ trades: 55, high: 210 })
    // trades for minutes 0-9 arriving now add nothing: 0-2 have trades, 3-9 have klines
    await env.run([writeCsv(env.filesDir, 'DDDUSDT-aggTrades-2024-01-02.csv', aggTradesCsv(DAY + 2 * HOUR, 10, 2))])
    expect(await one('SELECT count() AS n FROM trades WHERE symbol = {s:String}', { s: 'DDDUSDT' })).toEqual({ n: 6 })
    expect(await one(`SELECT sum(trades) AS trades FROM candles_1h WHERE symbol = 'DDDUSDT'`)).toEqual({ trades: 55 })
  })

  it('1h klines write candles_1h and its cascade; 1m klines inside such an hour are skipped', async () => {
    await env.run([writeZip(env.filesDir, 'EEEUSDT-1h-2024-01-01.zip', klinesCsv(DAY, 2, HOUR, false))])
    await env.run([writeZip(env.filesDir, 'EEEUSDT-1m-2024-01-01.zip', klinesCsv(DAY, 90))])
    const levels = await one<Record<string, number>>(
      `SELECT (SELECT count() FROM candles_1m WHERE symbol = 'EEEUSDT') AS m1,
              (SELECT sum(trades) FROM candles_1h WHERE symbol = 'EEEUSDT') AS h1,
              (SELECT sum(trades) FROM candles_1d WHERE symbol = 'EEEUSDT') AS d1`
    )
    expect(levels).toEqual({ m1: 0, h1: 14, d1: 14 })
  })
})

describe('data.binance.vision fundingRate and metrics', () => {
  it('maps fundingRate rows to funding with the interval of the file', async () => {
    const csv =
      'calc_time,funding_interval_hours,last_funding_rate\n' +
      [0, 8, 16].map((h) => `${DAY + h * HOUR},8,0.0001${h}`).join('\n') +
      '\n'
    await env.run([writeZip(env.filesDir, 'FFFUSDT-fundingRate-2024-01.zip', csv)])
    const rows = await env.store.query<{ ts: number; rate: number; interval: number; base: string }>(
      `SELECT toUnixTimestamp64Milli(ts) AS ts, funding_rate AS rate, interval_hours AS interval, base FROM funding WHERE symbol = 'FFFUSDT' ORDER BY ts`
    )
    expect(rows).toEqual([
      { ts: DAY, rate: 0.0001, interval: 8, base: 'FFF' },
      { ts: DAY + 8 * HOUR, rate: 0.00018, interval: 8, base: 'FFF' },
      { ts: DAY + 16 * HOUR, rate: 0.000116, interval: 8, base: 'FFF' }
    ])
  })

  it('maps metrics to open interest (base, USD) and long/short account ratios, skipping empty cells', async () => {
    const day = new Date(DAY).toISOString().slice(0, 10)
    const csv = [
      'create_time,symbol,sum_open_interest,sum_open_interest_value,count_toptrader_long_short_ratio,sum_toptrader_long_short_ratio,count_long_short_ratio,sum_taker_long_short_vol_ratio',
      `${day} 00:00:00,GGGUSDT,,,,,,`,
      `${day} 00:05:00,GGGUSDT,100.5,5025000,1.2,1.1,3,0.9`,
      `${day} 00:10:00,GGGUSDT,101,5050000,1.2,1.1,1,0.9`
    ].join('\n')
    await env.run([writeZip(env.filesDir, 'GGGUSDT-metrics-2024-01-01.zip', csv)])
    expect(
      await env.store.query(
        `SELECT toUnixTimestamp64Milli(ts) AS ts, oi_base, oi_usd FROM open_interest WHERE symbol = 'GGGUSDT' ORDER BY ts`
      )
    ).toEqual([
      { ts: DAY + 5 * MIN, oi_base: 100.5, oi_usd: 5025000 },
      { ts: DAY + 10 * MIN, oi_base: 101, oi_usd: 5050000 }
    ])
    expect(
      await env.store.query(
        `SELECT long_short_ratio AS r, long_account AS l, short_account AS s FROM long_short WHERE symbol = 'GGGUSDT' ORDER BY ts`
      )
    ).toEqual([
      { r: 3, l: 0.75, s: 0.25 },
      { r: 1, l: 0.5, s: 0.5 }
    ])
  })
})
