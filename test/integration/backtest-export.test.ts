/**
 * /v1/backtest/export through the real server and socket: every format carries the same rows and values
 * (independent readers: csv-parse, apache-arrow, parquetjs-lite, h5wasm), headers are set, errors before
 * the first byte are JSON, and a client that disconnects mid-export leaves the server healthy.
 */
import fs from 'node:fs'
import path from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'
import { tableFromIPC } from 'apache-arrow'
import { openParquet } from '../helpers/parquet-reader.js'
import h5wasm from 'h5wasm/node'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, jsonBody, ingestRecords } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
let pro = ''
let trader = ''
const MIN = 60_000
const HOUR = 3_600_000
const H0 = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR
const out = tmpDir()

type Row = Record<string, number | string>

const get = (path: string, key = pro, init: RequestInit = {}) =>
  fetch(`${srv.base}${path}`, { ...init, headers: { 'x-api-key': key } })

beforeAll(async () => {
  srv = await startTestServer()
  pro = (await srv.running.ctx.keys.create('pro', 'p')).key
  trader = (await srv.running.ctx.keys.create('trader', 't')).key
  const rows: object[] = []
  let id = 0
  for (const [exchange, base, symbol] of [
    ['binance', 'EXA', 'EXAUSDT'],
    ['okx', 'EXA', 'EXA-USDT-SWAP'],
    ['binance', 'EXB', 'EXBUSDT']
  ] as const) {
    for (let m = 0; m < 300; m += 1 + (id % 3)) {
      rows.push({
        exchange,
        symbol,
        base,
        market: 'perp',
        quote: 'USDT',
        side: id % 2 ? 'buy' : 'sell',
        ts: H0 + m * MIN + (id % 50) * 7,
        price: 100 + Math.sin(id) * 3 + id / 1000,
        qty: 0.001 * (1 + (id % 17)),
        trade_id: String(id++)
      })
    }
  }
  await ingestRecords(srv.base, 'trade', rows)
})
afterAll(async () => {
  await srv.stop()
  out.cleanup()
})

const QUERY = `symbols=EXA,EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + 5 * HOUR}`

async function reference(): Promise<Row[]> {
  const res = await get(`/v1/backtest/export?${QUERY}&format=json`)
  expect(res.status).toBe(200)
  return (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row)
}

async function download(format: string): Promise<{ res: Response; file: string }> {
  const res = await get(`/v1/backtest/export?${QUERY}&format=${format}`)
  expect(res.status, format).toBe(200)
  const file = path.join(out.dir, `x.${format}`)
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()))
  return { res, file }
}

const COLUMNS = [
  'timestamp',
  'exchange',
  'symbol',
  'base',
  'open',
  'high',
  'low',
  'close',
  'volume_base',
  'volume_quote',
  'trades'
]

describe('GET /v1/backtest/export', () => {
  it('NDJSON rows equal the candles of /v1/historical/ohlcv, every venue of each symbol', async () => {
    const rows = await reference()
    expect(Object.keys(rows[0]!)).toEqual(COLUMNS)
    const markets = [...new Set(rows.map((r) => `${r['exchange']}:${r['symbol']}`))]
    expect(markets).toEqual(['binance:EXAUSDT', 'okx:EXA-USDT-SWAP', 'binance:EXBUSDT'])
    for (const [exchange, symbol] of [
      ['binance', 'EXAUSDT'],
      ['okx', 'EXA-USDT-SWAP']
    ]) {
      const page = await jsonBody(
        await get(
          `/v1/historical/ohlcv?symbol=${symbol}&exchange=${exchange}&timeframe=1m&start_time=${H0}&end_time=${H0 + 5 * HOUR}&limit=10000`
        )
      )
      const mine = rows.filter((r) => r['symbol'] === symbol)
      expect(mine.length).toBe(page.data.length)
      mine.forEach((r, i) => {
        const c = page.data[i]
        expect([r['timestamp'], r['open'], r['high'], r['low'], r['close'], r['trades']]).toEqual([
          c.timestamp,
          c.open,
          c.high,
          c.low,
          c.close,
          c.trades
        ])
        expect(r['volume_quote']).toBe(c.volume_quote)
      })
    }
  })

  it('csv, json array, arrow, parquet and hdf5 carry the same rows and values', async () => {
    const ref = await reference()
    const csv = await download('csv')
    expect(csv.res.headers.get('content-type')).toContain('text/csv')
    expect(csv.res.headers.get('content-disposition')).toMatch(/^attachment; filename="tidewatch_EXA-EXB_1m_.*\.csv"$/)
    const STRINGS = new Set(['exchange', 'symbol', 'base'])
    const csvRows = (parseCsv(fs.readFileSync(csv.file), { columns: true }) as Record<string, string>[]).map((r) =>
      Object.fromEntries(COLUMNS.map((c) => [c, STRINGS.has(c) ? r[c]! : Number(r[c])]))
    )
    expect(csvRows).toEqual(ref)

    const arr = await get(`/v1/backtest/export?${QUERY}&format=json&json_layout=array`)
    expect(arr.headers.get('content-type')).toContain('application/json')
    expect(await arr.json()).toEqual(ref)

    const arrow = await download('arrow')
    const table = tableFromIPC(fs.readFileSync(arrow.file))
    expect(table.numRows).toBe(ref.length)
    const arrowRows = table.toArray().map((r) => {
      const o = r.toJSON() as Record<string, unknown>
      return Object.fromEntries(COLUMNS.map((c) => [c, typeof o[c] === 'bigint' ? Number(o[c]) : o[c]]))
    })
    expect(arrowRows).toEqual(ref)

    const pq = await download('parquet')
    const reader = await openParquet(fs.readFileSync(pq.file))
    const cursor = reader.getCursor()
    const pqRows: Row[] = []
    for (let r = await cursor.next(); r; r = await cursor.next()) {
      pqRows.push(Object.fromEntries(COLUMNS.map((c) => [c, STRINGS.has(c) ? String(r[c]) : Number(r[c])])))
    }
    await reader.close()
    expect(pqRows).toEqual(ref)

    const h5 = await download('hdf5')
    await h5wasm.ready
    const f = new h5wasm.File(h5.file, 'r')
    try {
      const column = (c: string): (number | bigint | string)[] =>
        Array.from((f.get(c) as unknown as { value: ArrayLike<number | bigint | string> }).value)
      const cols = Object.fromEntries(COLUMNS.map((c) => [c, column(c)]))
      const h5Rows = ref.map((_, i) =>
        Object.fromEntries(COLUMNS.map((c) => [c, typeof cols[c]![i] === 'bigint' ? Number(cols[c]![i]) : cols[c]![i]]))
      )
      expect(h5Rows).toEqual(ref)
    } finally {
      f.close()
    }
  })

  it('answers JSON errors before the first byte: plan feature, limits, unknown symbol', async () => {
    const res = await get(`/v1/backtest/export?${QUERY}&format=parquet`, trader)
    expect(res.status).toBe(403)
    expect((await jsonBody(res)).error.message).toContain('pro')
    const cases: [string, string][] = [
      [`symbols=EXA&timeframe=1m&lookback=31d&format=csv`, 'lookback'],
      [`symbols=EXA&timeframe=1m&lookback=1d&format=xlsx`, 'format'],
      [`symbols=NOPE&timeframe=1m&lookback=1d&format=csv`, 'symbols'],
      [`symbols=EXA&timeframe=1m&lookback=1d&format=csv&json_layout=table`, 'json_layout']
    ]
    for (const [q, param] of cases) {
      const r = await get(`/v1/backtest/export?${q}`)
      expect(r.status, q).toBe(400)
      expect((await jsonBody(r)).error.param, q).toBe(param)
    }
  })

  it('merges candle states split over several parts: many markets, every row once, in key order', async () => {
    // three inserts = three parts; each holds two thirds of every market's minutes, so most candles are
    // split over two parts (partial states: open/close from different times, volumes summed)
    const start = Math.floor((Date.now() - 15 * 86_400_000) / MIN) * 60
    const markets = ['MKA', 'MKB', 'MKC', 'MKD', 'MKE']
    const MINUTES = 12_000
    for (const part of [0, 1, 2]) {
      await srv.running.ctx.store.command(
        `INSERT INTO candles_1m
         SELECT base, 'binance', concat(base, 'USDT'), toDateTime(${start} + m * 60, 'UTC'),
           argMinState(p, t), max(p), min(p), argMaxState(p, t), sum(1.0), sum(p), sum(0.5), toUInt64(1)
         FROM (
           SELECT arrayJoin(['${markets.join("','")}']) AS base, number AS m,
             toDateTime64(${start} + m * 60, 3, 'UTC') + toIntervalSecond(${part} * 10) AS t,
             100 + m / 1000 + ${part} + length(base) AS p
           FROM numbers(${MINUTES}) WHERE (m + ${part}) % 3 != 0
         ) GROUP BY base, m, t, p`
      )
    }
    const reference = await srv.running.ctx.store.query<Row>(
      `SELECT toInt64(toUnixTimestamp(bucket)) * 1000 AS timestamp, exchange, symbol, base,
         argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
         sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(trades) AS trades
       FROM candles_1m WHERE base IN ('${markets.join("','")}')
       GROUP BY base, exchange, symbol, bucket ORDER BY base, exchange, symbol, bucket`
    )
    expect(reference.length).toBe(markets.length * MINUTES)
    const q = `symbols=${markets.join(',')}&timeframe=1m&lookback=30d`
    const ndjson = await get(`/v1/backtest/export?${q}&format=json`)
    const rows = (await ndjson.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row)
    expect(rows).toEqual(reference)

    // Parquet (several chDB blocks joined into one file) holds the same rows in the same order
    const res = await get(`/v1/backtest/export?${q}&format=parquet`)
    const file = path.join(out.dir, 'markets.parquet')
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()))
    // read back by ClickHouse in file order (its reader decodes row groups in parallel otherwise)
    const back = await srv.running.ctx.store.query<Row>(
      `SELECT * FROM file('${file}', Parquet) SETTINGS input_format_parquet_preserve_order = 1, max_threads = 1`
    )
    expect(back).toEqual(reference)
    const tmp = path.join(srv.dataDir, 'tmp', 'export')
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([])
  })

  it('a client that disconnects mid-export leaves the server healthy and no temp file behind', async () => {
    // 3M minute candles (enough for many blocks) written straight into the candle table
    await srv.running.ctx.store.command(
      `INSERT INTO candles_1m SELECT 'BIG', 'binance', 'BIGUSDT', toDateTime(${Math.floor(H0 / 1000) - 86400 * 20} + number * 60, 'UTC'),
         argMinState(toFloat64(number), now64(3)), max(toFloat64(number)), min(toFloat64(number)), argMaxState(toFloat64(number), now64(3)),
         sum(1.0), sum(1.0), sum(0.5), toUInt64(count())
       FROM numbers(28000) GROUP BY number`
    )
    for (const format of ['csv', 'parquet']) {
      const ac = new AbortController()
      const res = await get(`/v1/backtest/export?symbols=BIG&timeframe=1m&lookback=30d&format=${format}`, pro, {
        signal: ac.signal
      })
      expect(res.status).toBe(200)
      const reader = res.body!.getReader()
      await reader.read()
      ac.abort()
      await reader.cancel().catch(() => undefined)
    }
    await new Promise((r) => setTimeout(r, 500))
    expect((await fetch(`${srv.base}/v1/health`)).status).toBe(200)
    const again = await get(
      `/v1/backtest/export?symbols=EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + HOUR}&format=csv`
    )
    expect(again.status).toBe(200)
    expect((await again.text()).split('\n')[0]).toBe(COLUMNS.map((c) => `"${c}"`).join(','))
    const tmp = path.join(srv.dataDir, 'tmp', 'export')
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([])
  })
})
