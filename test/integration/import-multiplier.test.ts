/**
 * History import of multiplier perpetuals (`1000PEPEUSDT`, Bybit `SHIB1000USDT`) into a real chDB store:
 * imported rows carry the plain coin, prices per coin and sizes in coins, exactly as the live normalizers
 * store the same market, so imported history and live data form one series. Spot `1000SATS` is a coin and
 * stays as written. OKX sizes in Tardis files are contracts of a value the file does not give: trades are
 * refused, open interest skipped with a note.
 */
import { describe, expect, it } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { silentLogger } from '../../engine/log.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { ImportError } from '../../ingest/import/import-error.js'
import { BinanceNormalizer } from '../../ingest/normalize/binance.js'
import { BybitNormalizer } from '../../ingest/normalize/bybit.js'
import { useImportStore } from '../helpers/import-store.js'
import {
  AGG_HEADER,
  HOUR,
  KLINE_HEADER,
  MIN,
  recentDay,
  writeCsv,
  writeGzip,
  writeZip
} from '../helpers/import-files.js'
import { aggTradeEvent } from '../helpers/venues/binance-fixtures.js'
import { tradeMessage, tradeRow } from '../helpers/venues/bybit-fixtures.js'

const env = useImportStore('tidewatch-import-mult-')
const DAY = recentDay()
const DAY_MS = 86_400_000

/** Writes live records through the ingest pipeline, as the live feed does. */
async function ingestLive(records: readonly NormalizedRecord[]): Promise<void> {
  const p = new IngestPipeline(env.store, { batchRows: 10_000, flushMs: 60_000, queueRows: 100_000 }, silentLogger())
  for (const c of encodeRecords(records, false)) await p.write(c)
  await p.barrier()
  await p.close(Date.now() + 5000)
}

/** The stored form of a trade record (the columns `trades` keeps). */
function tradeRowOf(r: NormalizedRecord): Record<string, unknown> {
  if (r.kind !== 'trade') throw new Error(`not a trade: ${r.kind}`)
  const { kind: _kind, ...rest } = r
  return rest
}

const TRADE_COLUMNS = `toUnixTimestamp64Milli(ts) AS ts, exchange, market, symbol, base, quote, side, price, qty, trade_id`

/** 1m candles of a market (merged), each bucket as ms since the first one given. */
async function candles(base: string, symbol: string): Promise<Record<string, unknown>[]> {
  return env.store.query(
    `SELECT exchange, symbol, toUnixTimestamp(bucket) * 1000 AS bucket, argMinMerge(open) AS open, max(high) AS high,
       min(low) AS low, argMaxMerge(close) AS close, sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote,
       sum(buy_volume_base) AS buy_volume_base, sum(trades) AS trades
     FROM candles_1m WHERE base = {b:String} AND symbol = {s:String} GROUP BY exchange, symbol, bucket ORDER BY bucket`,
    { b: base, s: symbol }
  )
}

/** aggTrades of 1000PEPEUSDT as data.binance.vision writes them: price per 1000 PEPE, quantity in 1000s of PEPE. */
const PEPE_TRADES: readonly [id: number, offsetMs: number, price: string, qty: string, buyerIsMaker: boolean][] = [
  [501, 0, '0.0123456', '1500', true],
  [502, 1_000, '0.0124', '20', false],
  [503, 2_000, '0.0122', '7', true],
  [504, MIN + 5_000, '0.0125', '300', false]
]

describe('data.binance.vision multiplier perpetual', () => {
  it('aggTrades of 1000PEPEUSDT are stored as PEPE per coin, exactly as the live normalizer stores them', async () => {
    const t0 = DAY
    const csv = [AGG_HEADER]
      .concat(PEPE_TRADES.map(([id, dt, p, q, m]) => `${id},${p},${q},${id * 3},${id * 3 + 2},${t0 + dt},${m}`))
      .join('\n')
    const [res] = await env.run([writeZip(env.filesDir, '1000PEPEUSDT-aggTrades-2024-01-01.zip', csv)])
    expect(res).toMatchObject({ rows: 4, tables: ['trades'] })

    const stored = await env.store.query<Record<string, unknown>>(
      `SELECT ${TRADE_COLUMNS} FROM trades WHERE symbol = '1000PEPEUSDT' AND toUnixTimestamp64Milli(trades.ts) < {to:Int64} ORDER BY trade_id`,
      { to: t0 + HOUR }
    )
    // the units, stated: price / 1000, quantity × 1000, the coin as base, the native symbol kept
    expect(stored[0]).toMatchObject({ base: 'PEPE', symbol: '1000PEPEUSDT', exchange: 'binance', side: 'sell' })
    expect(stored[0]!['price']).toBeCloseTo(0.0000123456, 15)
    expect(stored.map((r) => r['qty'])).toEqual([1_500_000, 20_000, 7_000, 300_000])

    // the same trades from the live socket, through the live normalizer (no exchangeInfo: it guesses as on a replay)
    const live = new BinanceNormalizer()
    const out: NormalizedRecord[] = []
    for (const [id, dt, p, q, m] of PEPE_TRADES) {
      live.normalize(
        'ws',
        { stream: '1000pepeusdt@aggTrade', data: aggTradeEvent('1000PEPEUSDT', id, t0 + dt, p, q, m) },
        0,
        out
      )
    }
    expect(stored).toEqual(out.map(tradeRowOf))
  })

  it('candles of imported trades equal those of the same trades arriving live, in one series', async () => {
    const tLive = DAY + DAY_MS
    const live = new BinanceNormalizer()
    const out: NormalizedRecord[] = []
    for (const [id, dt, p, q, m] of PEPE_TRADES) {
      const event = aggTradeEvent('1000PEPEUSDT', 10_000 + id, tLive + dt, p, q, m)
      live.normalize('ws', { stream: '1000pepeusdt@aggTrade', data: event }, 0, out)
    }
    await ingestLive(out)
    const series = await candles('PEPE', '1000PEPEUSDT')
    const imported = series.filter((c) => (c['bucket'] as number) < DAY + DAY_MS)
    const fromLive = series.filter((c) => (c['bucket'] as number) >= DAY + DAY_MS)
    expect(imported).toHaveLength(2)
    expect(fromLive.map((c) => ({ ...c, bucket: (c['bucket'] as number) - DAY_MS }))).toEqual(imported)
    expect(imported[0]).toMatchObject({
      exchange: 'binance',
      bucket: DAY,
      high: 0.0124 / 1000,
      low: 0.0122 / 1000,
      trades: 3
    })
    expect(imported[0]!['volume_base']).toBe(1_527_000)

    // a file of the minutes the live feed already holds writes nothing: coverage is judged under PEPE
    const csv = [AGG_HEADER]
      .concat(PEPE_TRADES.map(([id, dt, p, q, m]) => `${id},${p},${q},${id * 3},${id * 3 + 2},${tLive + dt},${m}`))
      .join('\n')
    await env.run([writeCsv(env.filesDir, '1000PEPEUSDT-aggTrades-2024-01-02.csv', csv)])
    expect(await candles('PEPE', '1000PEPEUSDT')).toEqual(series)
    expect(
      await env.store.query(
        `SELECT count() AS n FROM trades WHERE symbol = '1000PEPEUSDT' AND toUnixTimestamp64Milli(ts) >= {t:Int64}`,
        {
          t: tLive
        }
      )
    ).toEqual([{ n: 4 }])
  })

  it('klines of 1000PEPEUSDT: prices / 1000, base and taker-buy volumes × 1000, quote volume as written', async () => {
    const t = DAY + 3 * HOUR
    const csv = `${KLINE_HEADER}\n${t},0.0120,0.0130,0.0110,0.0125,5000,${t + MIN - 1},61.5,42,2000,24.6,0\n`
    await env.run([writeZip(env.filesDir, '1000PEPEUSDT-1m-2024-01-01.zip', csv)])
    const [c] = await env.store.query<Record<string, number | string>>(
      `SELECT base, argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
         sum(volume_base) AS vb, sum(volume_quote) AS vq, sum(buy_volume_base) AS bvb, sum(trades) AS n
       FROM candles_1m WHERE symbol = '1000PEPEUSDT' AND toUnixTimestamp(bucket) * 1000 = {b:Int64} GROUP BY base`,
      { b: t }
    )
    expect(c).toEqual({
      base: 'PEPE',
      open: 0.012 / 1000,
      high: 0.013 / 1000,
      low: 0.011 / 1000,
      close: 0.0125 / 1000,
      vb: 5_000_000,
      vq: 61.5,
      bvb: 2_000_000,
      n: 42
    })
  })

  it('metrics of 1000PEPEUSDT: open interest in PEPE (× 1000), USD value as written; fundingRate under PEPE', async () => {
    const day = new Date(DAY).toISOString().slice(0, 10)
    const metrics = [
      'create_time,symbol,sum_open_interest,sum_open_interest_value,count_toptrader_long_short_ratio,sum_toptrader_long_short_ratio,count_long_short_ratio,sum_taker_long_short_vol_ratio',
      `${day} 00:05:00,1000PEPEUSDT,4500000.5,90000,1.2,1.1,3,0.9`
    ].join('\n')
    const funding = `calc_time,funding_interval_hours,last_funding_rate\n${DAY + 4 * HOUR},4,0.0001\n`
    await env.run([
      writeZip(env.filesDir, '1000PEPEUSDT-metrics-2024-01-01.zip', metrics),
      writeZip(env.filesDir, '1000PEPEUSDT-fundingRate-2024-01.zip', funding)
    ])
    expect(
      await env.store.query(`SELECT base, oi_base, oi_usd FROM open_interest WHERE symbol = '1000PEPEUSDT'`)
    ).toEqual([{ base: 'PEPE', oi_base: 4_500_000_500, oi_usd: 90000 }])
    expect(
      await env.store.query(`SELECT base, long_short_ratio AS r FROM long_short WHERE symbol = '1000PEPEUSDT'`)
    ).toEqual([{ base: 'PEPE', r: 3 }])
    expect(await env.store.query(`SELECT base, funding_rate AS r FROM funding WHERE symbol = '1000PEPEUSDT'`)).toEqual([
      { base: 'PEPE', r: 0.0001 }
    ])
  })

  it('spot 1000SATSUSDT is the coin 1000SATS: base and prices as written', async () => {
    // spot aggTrades have an 8th column, is_best_match
    const csv = `${AGG_HEADER},is_best_match\n1,0.000321,250000,1,1,${DAY + 5 * HOUR},true,true\n`
    await env.run([writeCsv(env.filesDir, '1000SATSUSDT-aggTrades-2024-01-01.csv', csv)])
    expect(
      await env.store.query(`SELECT exchange, market, base, price, qty FROM trades WHERE symbol = '1000SATSUSDT'`)
    ).toEqual([{ exchange: 'binance-spot', market: 'spot', base: '1000SATS', price: 0.000321, qty: 250000 }])
  })
})

/** epoch ms as Tardis µs */
const us = (ms: number): number => ms * 1000 + 7

describe('Tardis.dev multiplier perpetuals', () => {
  const t0 = DAY + 6 * HOUR

  it('trades of binance-futures 1000PEPEUSDT and bybit SHIB1000USDT match the live normalizers; spot stays', async () => {
    const csv = [
      'exchange,symbol,timestamp,local_timestamp,id,side,price,amount',
      `binance-futures,1000PEPEUSDT,${us(t0)},${us(t0) + 5},7001,sell,0.0123456,1500`,
      `bybit,SHIB1000USDT,${us(t0 + 1000)},${us(t0 + 1000) + 5},b-1,sell,0.0215,300`,
      `bybit,1000PEPEUSDT,${us(t0 + 2000)},${us(t0 + 2000) + 5},b-2,buy,0.0124,10`,
      `binance,1000SATSUSDT,${us(t0 + 3000)},${us(t0 + 3000) + 5},s-1,buy,0.000321,250000`
    ].join('\n')
    await env.run([writeGzip(env.filesDir, 'tardis_trades_2024-01-01_MULT.csv.gz', csv)])
    const stored = await env.store.query<Record<string, unknown>>(
      `SELECT ${TRADE_COLUMNS} FROM trades WHERE toUnixTimestamp64Milli(trades.ts) BETWEEN {t:Int64} AND {t:Int64} + 59999 ORDER BY ts`,
      { t: t0 }
    )

    const binance = new BinanceNormalizer()
    const bybit = new BybitNormalizer()
    const out: NormalizedRecord[] = []
    binance.normalize(
      'ws',
      { stream: 'x', data: aggTradeEvent('1000PEPEUSDT', 7001, t0, '0.0123456', '1500', true) },
      0,
      out
    )
    bybit.normalize(
      'ws',
      tradeMessage('SHIB1000USDT', t0 + 1000, [tradeRow('SHIB1000USDT', t0 + 1000, 'Sell', '300', '0.0215', 'b-1')]),
      0,
      out
    )
    bybit.normalize(
      'ws',
      tradeMessage('1000PEPEUSDT', t0 + 2000, [tradeRow('1000PEPEUSDT', t0 + 2000, 'Buy', '10', '0.0124', 'b-2')]),
      0,
      out
    )
    expect(stored.slice(0, 3)).toEqual(out.map(tradeRowOf))
    expect(stored.slice(0, 3).map((r) => [r['base'], r['qty']])).toEqual([
      ['PEPE', 1_500_000],
      ['SHIB', 300_000],
      ['PEPE', 10_000]
    ])
    // Tardis `binance` is spot: 1000SATS is the token itself
    expect(stored[3]).toMatchObject({ exchange: 'binance-spot', base: '1000SATS', price: 0.000321, qty: 250000 })
    // the coverage keys hold the coins: the imported minute is one 1m candle under PEPE
    expect((await candles('PEPE', '1000PEPEUSDT')).filter((c) => c['bucket'] === t0)).toHaveLength(2)
  })

  it('derivative_ticker: mark/index / mult, linear OI × mult in coins, OI value in USD as the live feed computes it', async () => {
    const t = DAY + 7 * HOUR
    const csv = [
      'exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price',
      `binance-futures,1000PEPEUSDT,${us(t)},${us(t)},${us(t + HOUR)},0.0001,,5000000,0.02016,0.0201,0.02015`,
      `bybit,SHIB1000USDT,${us(t)},${us(t)},${us(t + HOUR)},0.00005,,2000000,0.0211,0.021,0.0212`
    ].join('\n')
    await env.run([writeGzip(env.filesDir, 'tardis_derivative_ticker_2024-01-01_MULT.csv.gz', csv)])
    const funding = await env.store.query<Record<string, unknown>>(
      `SELECT exchange, symbol, base, funding_rate, mark_price, index_price, toUnixTimestamp64Milli(next_funding_ts) AS next
       FROM funding WHERE ts = fromUnixTimestamp64Milli({t:Int64}, 'UTC') ORDER BY exchange`,
      { t }
    )
    // the live Binance mark price stream of the same market
    const live = new BinanceNormalizer()
    const out: NormalizedRecord[] = []
    const mark = {
      e: 'markPriceUpdate',
      E: t,
      s: '1000PEPEUSDT',
      p: '0.02015',
      i: '0.0201',
      P: '0.0202',
      r: '0.0001',
      T: t + HOUR
    }
    live.normalize('ws', { stream: '!markPrice@arr', data: [mark] }, 0, out)
    live.normalize(
      '/fapi/v1/openInterest?symbol=1000PEPEUSDT',
      { symbol: '1000PEPEUSDT', openInterest: '5000000', time: t },
      0,
      out
    )
    const liveFunding = out.find((r) => r.kind === 'funding')
    const liveOi = out.find((r) => r.kind === 'open_interest')
    expect(funding[0]).toEqual({
      exchange: 'binance',
      symbol: '1000PEPEUSDT',
      base: 'PEPE',
      funding_rate: 0.0001,
      mark_price: 0.02015 / 1000,
      index_price: 0.0201 / 1000,
      next: t + HOUR
    })
    expect(liveFunding).toMatchObject({
      base: funding[0]!['base'],
      symbol: funding[0]!['symbol'],
      mark_price: funding[0]!['mark_price'],
      index_price: funding[0]!['index_price']
    })
    expect(funding[1]).toMatchObject({
      exchange: 'bybit',
      base: 'SHIB',
      mark_price: 0.0212 / 1000,
      index_price: 0.021 / 1000
    })

    const oi = await env.store.query<Record<string, unknown>>(
      `SELECT exchange, symbol, base, oi_base, oi_usd FROM open_interest WHERE ts = fromUnixTimestamp64Milli({t:Int64}, 'UTC') ORDER BY exchange`,
      { t }
    )
    expect(oi).toEqual([
      {
        exchange: 'binance',
        symbol: '1000PEPEUSDT',
        base: 'PEPE',
        oi_base: 5_000_000_000,
        oi_usd: 5_000_000 * 0.02015
      },
      { exchange: 'bybit', symbol: 'SHIB1000USDT', base: 'SHIB', oi_base: 2_000_000_000, oi_usd: 2_000_000 * 0.0212 }
    ])
    expect(liveOi).toMatchObject({ base: 'PEPE', oi_base: oi[0]!['oi_base'], oi_usd: oi[0]!['oi_usd'] })
  })
})

describe('Tardis.dev OKX sizes are contracts', () => {
  it('refuses OKX swap trades (amount in contracts of unknown value) and writes nothing', async () => {
    const t = DAY + 8 * HOUR
    const csv = [
      'exchange,symbol,timestamp,local_timestamp,id,side,price,amount',
      `okex-swap,QQQ-USDT-SWAP,${us(t)},${us(t)},1,buy,10.5,3`
    ].join('\n')
    const f = writeGzip(env.filesDir, 'okex-swap_trades_2024-01-01_QQQ-USDT-SWAP.csv.gz', csv)
    const err = await env.run([f]).then(
      () => null,
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(ImportError)
    expect((err as ImportError).reason).toMatch(
      /trades of okex-swap QQQ-USDT-SWAP are not imported: Tardis gives OKX sizes in contracts .*ctVal/
    )
    expect(await env.store.query(`SELECT count() AS n FROM trades WHERE base = 'QQQ'`)).toEqual([{ n: 0 }])
  })

  it('keeps OKX funding from derivative_ticker, skips its open interest (contracts) and says so', async () => {
    const t = DAY + 9 * HOUR
    const csv = [
      'exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price',
      `okex-swap,RRR-USDT-SWAP,${us(t)},${us(t)},${us(t + HOUR)},0.0002,,123456,20.1,20,20.05`,
      `binance-futures,RRRUSDT,${us(t)},${us(t)},${us(t + HOUR)},0.0001,,1000,20.1,20,20.05`
    ].join('\n')
    const [res] = await env.run([writeGzip(env.filesDir, 'tardis_derivative_ticker_2024-01-01_RRR.csv.gz', csv)])
    expect(
      await env.store.query(`SELECT exchange, base, mark_price AS m FROM funding WHERE base = 'RRR' ORDER BY exchange`)
    ).toEqual([
      { exchange: 'binance', base: 'RRR', m: 20.05 },
      { exchange: 'okx', base: 'RRR', m: 20.05 }
    ])
    expect(await env.store.query(`SELECT exchange, oi_base FROM open_interest WHERE base = 'RRR'`)).toEqual([
      { exchange: 'binance', oi_base: 1000 }
    ])
    expect(res!.notes).toContain(
      'open interest not imported (Tardis gives OKX sizes in contracts as OKX sends them, and the contract value (ctVal × ctMult) is not in the file): okex-swap RRR-USDT-SWAP'
    )
  })
})
