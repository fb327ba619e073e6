/**
 * /v1/backtest/export through the real server and socket: every format carries the same rows and values
 * (independent readers: csv-parse, apache-arrow, parquetjs-lite, h5wasm), headers are set, errors before
 * the first byte are JSON, a client that disconnects mid-export leaves the server healthy, and one export
 * more than EXPORT_MAX_CONCURRENT is refused.
 */
import fs from 'node:fs'
import path from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'
import { tableFromIPC } from 'apache-arrow'
import { openParquet } from '../helpers/parquet-reader.js'
import h5wasm from 'h5wasm/node'
import { describe, it, expect } from 'vitest'
import { jsonBody } from '../helpers/server.js'
import {
  srv,
  pro,
  trader,
  MIN,
  HOUR,
  H0,
  out,
  type Row,
  get,
  useExportServer,
  insertSplitCandles
} from '../helpers/backtest-export.js'

useExportServer(true)

const QUERY = `symbols=EXA,EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + 5 * HOUR}`

/**
 * `get`, retried while the one export slot is still taken (503): the server frees it when it sees the
 * previous client leave, on its next write, which a test that just aborted one may not wait for. Up to 5 s.
 */
async function getWhenFree(path: string, init: RequestInit = {}): Promise<Response> {
  for (let i = 0; ; i++) {
    const res = await get(path, pro, init)
    if (res.status !== 503 || i === 50) return res
    await res.arrayBuffer()
    await new Promise((r) => setTimeout(r, 100))
  }
}

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
    await insertSplitCandles('candles_1m', markets, start, MINUTES, 60, 100)
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
      const res = await getWhenFree(`/v1/backtest/export?symbols=BIG&timeframe=1m&lookback=30d&format=${format}`, {
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
    const again = await getWhenFree(
      `/v1/backtest/export?symbols=EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + HOUR}&format=csv`
    )
    expect(again.status).toBe(200)
    expect((await again.text()).split('\n')[0]).toBe(COLUMNS.map((c) => `"${c}"`).join(','))
    const tmp = path.join(srv.dataDir, 'tmp', 'export')
    expect(fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).toEqual([])
  })

  it('EXPORT_MAX_CONCURRENT: one more export answers 503 with Retry-After; the slot frees when the client leaves', async () => {
    // ~45 MB of CSV: far more than the socket buffers, so an export nobody reads stays open
    await srv.running.ctx.store.command(
      `INSERT INTO candles_1m SELECT concat('SL', toString(number % 12)), 'binance', concat('SL', toString(number % 12), 'USDT'),
         toDateTime(${Math.floor(Date.now() / 1000) - 86400 * 25} + intDiv(number, 12) * 60, 'UTC'),
         argMinState(toFloat64(number), now64(3)), max(toFloat64(number)), min(toFloat64(number)),
         argMaxState(toFloat64(number), now64(3)), sum(1.0), sum(1.0), sum(0.5), toUInt64(count())
       FROM numbers(12 * 34000) GROUP BY number`
    )
    const symbols = Array.from({ length: 12 }, (_, i) => `SL${i}`).join(',')
    const ac = new AbortController()
    const first = await get(`/v1/backtest/export?symbols=${symbols}&timeframe=1m&lookback=30d&format=csv`, pro, {
      signal: ac.signal
    })
    expect(first.status).toBe(200)
    const reader = first.body!.getReader()
    await reader.read()

    const health = async () => (await jsonBody(await fetch(`${srv.base}/v1/health`))).exports
    const rejected = (await health()).rejected
    expect(await health()).toMatchObject({ active: 1, max: 1 })
    const busy = await get(
      `/v1/backtest/export?symbols=EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + HOUR}&format=csv`
    )
    expect(busy.status).toBe(503)
    expect(busy.headers.get('retry-after')).toBe('5')
    const err = (await jsonBody(busy)).error
    expect(err.code).toBe('unavailable')
    expect(err.message).toContain('EXPORT_MAX_CONCURRENT')
    expect((await health()).rejected).toBe(rejected + 1)
    // HEAD answers the headers without a slot
    const head = await get(
      `/v1/backtest/export?symbols=EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + HOUR}&format=parquet`,
      pro,
      { method: 'HEAD' }
    )
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('application/vnd.apache.parquet')

    ac.abort()
    await reader.cancel().catch(() => undefined)
    // the server sees the client leave on its next write
    const again = await getWhenFree(
      `/v1/backtest/export?symbols=EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + HOUR}&format=csv`
    )
    const status = again.status
    await again.arrayBuffer()
    expect(status).toBe(200)

    // an export that fails before its first byte (HDF5 over its 1,000,000-row limit) gives its slot back
    await srv.running.ctx.store.command(
      `INSERT INTO candles_1m SELECT concat('HL', toString(number % 30)), 'binance', concat('HL', toString(number % 30), 'USDT'),
         toDateTime(${Math.floor(Date.now() / 1000) - 86400 * 28} + intDiv(number, 30) * 60, 'UTC'),
         argMinState(toFloat64(number), now64(3)), max(toFloat64(number)), min(toFloat64(number)),
         argMaxState(toFloat64(number), now64(3)), sum(1.0), sum(1.0), sum(0.5), toUInt64(count())
       FROM numbers(30 * 35000) GROUP BY number`
    )
    const big = Array.from({ length: 30 }, (_, i) => `HL${i}`).join(',')
    const tooMany = await get(`/v1/backtest/export?symbols=${big}&timeframe=1m&lookback=30d&format=hdf5`)
    expect(tooMany.status).toBe(413)
    await tooMany.arrayBuffer()
    const next = await get(
      `/v1/backtest/export?symbols=EXB&timeframe=1m&start_time=${H0}&end_time=${H0 + HOUR}&format=csv`
    )
    expect(next.status).toBe(200)
    await next.arrayBuffer()
    expect((await health()).active).toBe(0)
  })
})
