/**
 * History import of Tardis.dev CSVs into a real chDB store: gzipped trades of several markets (µs times),
 * derivative_ticker (funding with each market's interval inferred, open interest) and options_chain map to the
 * right rows. data.binance.vision files: import-binance.test.ts; bad input: import-bad-input.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { Params } from '../../engine/store/store.js'
import { firstRow, useImportStore } from '../helpers/import-store.js'
import { HOUR, MIN, recentDay, tardisMicros as us, writeGzip } from '../helpers/import-files.js'

const env = useImportStore('tidewatch-import-files-')
const DAY = recentDay()
const one = <T>(sql: string, params?: Params): Promise<T> => firstRow<T>(env.store, sql, params)

describe('Tardis.dev CSV', () => {
  it('maps gzipped trades of several markets (µs times) to trades and candles', async () => {
    const csv = [
      'exchange,symbol,timestamp,local_timestamp,id,side,price,amount',
      `binance-futures,HHHUSDT,${us(DAY)},${us(DAY) + 5},t1,buy,10.5,2`,
      `binance-futures,HHHUSDT,${us(DAY + 1000)},${us(DAY + 1000) + 5},t2,sell,10.7,1`,
      `bybit,HHHUSDT,${us(DAY + 2000)},${us(DAY + 2000) + 5},,buy,10.6,3`
    ].join('\n')
    await env.run([writeGzip(env.filesDir, 'binance-futures_trades_2024-01-01_HHH.csv.gz', csv)])
    expect(
      await env.store.query(
        `SELECT toUnixTimestamp64Milli(ts) AS ts, exchange, market, symbol, base, quote, side, price, qty, trade_id FROM trades WHERE base = 'HHH' ORDER BY ts`
      )
    ).toEqual([
      {
        ts: DAY,
        exchange: 'binance',
        market: 'perp',
        symbol: 'HHHUSDT',
        base: 'HHH',
        quote: 'USDT',
        side: 'buy',
        price: 10.5,
        qty: 2,
        trade_id: 't1'
      },
      {
        ts: DAY + 1000,
        exchange: 'binance',
        market: 'perp',
        symbol: 'HHHUSDT',
        base: 'HHH',
        quote: 'USDT',
        side: 'sell',
        price: 10.7,
        qty: 1,
        trade_id: 't2'
      },
      {
        ts: DAY + 2000,
        exchange: 'bybit',
        market: 'perp',
        symbol: 'HHHUSDT',
        base: 'HHH',
        quote: 'USDT',
        side: 'buy',
        price: 10.6,
        qty: 3,
        trade_id: String(us(DAY + 2000))
      }
    ])
    expect(await one(`SELECT count() AS n, sum(trades) AS t FROM candles_1m WHERE base = 'HHH'`)).toEqual({
      n: 2,
      t: 3
    })
  })

  it('maps derivative_ticker to funding and open interest (linear in base, inverse in USD)', async () => {
    const csv = [
      'exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price',
      `binance-futures,IIIUSDT,${us(DAY)},${us(DAY)},${us(DAY + 8 * HOUR)},0.0001,0.0002,100,20.1,19.9,20`,
      `deribit,III-PERPETUAL,${us(DAY + 1000)},${us(DAY + 1000)},,0.00005,,4000,,,20`,
      `binance-futures,IIIUSDT,${us(DAY + 2 * HOUR)},${us(DAY + 2 * HOUR)},,,,,,,`
    ].join('\n')
    await env.run([writeGzip(env.filesDir, 'tardis_derivative_ticker_III.csv.gz', csv)])
    expect(
      await env.store.query(
        `SELECT exchange, symbol, funding_rate AS r, interval_hours AS h, toUnixTimestamp64Milli(next_funding_ts) AS next, mark_price AS mark, index_price AS idx
         FROM funding WHERE base = 'III' ORDER BY ts`
      )
    ).toEqual([
      { exchange: 'binance', symbol: 'IIIUSDT', r: 0.0001, h: 8, next: DAY + 8 * HOUR, mark: 20, idx: 19.9 },
      { exchange: 'deribit', symbol: 'III-PERPETUAL', r: 0.00005, h: 8, next: null, mark: 20, idx: null }
    ])
    expect(
      await env.store.query(`SELECT exchange, oi_base, oi_usd FROM open_interest WHERE base = 'III' ORDER BY ts`)
    ).toEqual([
      { exchange: 'binance', oi_base: 100, oi_usd: 2000 },
      { exchange: 'deribit', oi_base: 200, oi_usd: 4000 }
    ])
  })

  it('infers each market funding interval from its funding_timestamp steps (1 h, 4 h, 8 h; 8 h with a note when not shown)', async () => {
    const lines = [
      'exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price'
    ]
    const markets: [string, string, number][] = [
      ['binance-futures', 'JJ1USDT', 1],
      ['bybit', 'JJ4USDT', 4],
      ['okex-swap', 'JJ8-USDT-SWAP', 8]
    ]
    // every 20 minutes for 17 hours, markets interleaved as in a Tardis file; funding_timestamp = next settlement
    for (let t = DAY; t < DAY + 17 * HOUR; t += 20 * MIN) {
      for (const [exchange, symbol, hours] of markets) {
        const next = (Math.floor(t / (hours * HOUR)) + 1) * hours * HOUR
        lines.push(`${exchange},${symbol},${us(t)},${us(t)},${next * 1000},0.0001,,,,,20`)
      }
    }
    lines.push(`binance-futures,JJXUSDT,${us(DAY)},${us(DAY)},${us(DAY + 8 * HOUR)},0.0001,,,,,20`)
    const [res] = await env.run([
      writeGzip(env.filesDir, 'binance-futures_derivative_ticker_2024-01-01_JJ.csv.gz', lines.join('\n'))
    ])
    expect(
      await env.store.query(
        `SELECT exchange, symbol, groupUniqArray(interval_hours) AS h, count() AS n FROM funding WHERE base LIKE 'JJ%'
         GROUP BY exchange, symbol ORDER BY symbol`
      )
    ).toEqual([
      { exchange: 'binance', symbol: 'JJ1USDT', h: [1], n: 51 },
      { exchange: 'bybit', symbol: 'JJ4USDT', h: [4], n: 51 },
      { exchange: 'okx', symbol: 'JJ8-USDT-SWAP', h: [8], n: 51 },
      { exchange: 'binance', symbol: 'JJXUSDT', h: [8], n: 1 }
    ])
    expect(res!.notes).toEqual([
      'funding interval not shown by the file (fewer than two distinct funding_timestamp values), stored as 8 h: binance-futures JJXUSDT',
      // OKX open interest is in contracts (import-multiplier.test.ts); said for every OKX market of the file
      'open interest not imported (Tardis gives OKX sizes in contracts as OKX sends them, and the contract value (ctVal × ctMult) is not in the file): okex-swap JJ8-USDT-SWAP'
    ])
  })

  it('maps options_chain to option quotes (IV in percent, prices in coin, no volume)', async () => {
    const csv = [
      'exchange,symbol,timestamp,local_timestamp,type,strike_price,expiration,open_interest,last_price,bid_price,bid_amount,bid_iv,ask_price,ask_amount,ask_iv,mark_price,mark_iv,underlying_index,underlying_price,delta,gamma,vega,theta,rho',
      `deribit,BTC-9JUN30-9875-P,${us(DAY)},${us(DAY) + 9},put,9875,1906963200000000,0.1,0.0295,0.0205,15.0,55.91,0.0235,15.0,68.94,0.02210436,62.89,SYN.BTC-9JUN30,9756.36,-0.61752,0.00103,2.24964,-53.05655,-0.22796`
    ].join('\n')
    await env.run([writeGzip(env.filesDir, 'deribit_options_chain_2024-01-01_OPTIONS.csv.gz', csv)])
    expect(
      await env.store.query(
        `SELECT exchange, instrument, underlying_price AS u, mark_price AS m, mark_iv AS iv, open_interest AS oi, volume_24h AS v, bid, ask FROM option_quotes WHERE instrument = 'BTC-9JUN30-9875-P'`
      )
    ).toEqual([
      {
        exchange: 'deribit',
        instrument: 'BTC-9JUN30-9875-P',
        u: 9756.36,
        m: 0.02210436,
        iv: 62.89,
        oi: 0.1,
        v: 0,
        bid: 0.0205,
        ask: 0.0235
      }
    ])
  })
})
