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
import { runCandleExport } from '../../engine/export/export-run.js'
import { primed } from '../../engine/export/primed.js'
import { pinnedRead } from '../../engine/export/pinned-parts.js'
import type { Params, Store } from '../../engine/store/store.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { exportTrades } from '../helpers/export-trades.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
let pro = ''
let trader = ''
const MIN = 60_000
const HOUR = 3_600_000
/** hours of the two-month tests: 2 days before a month boundary, 1 day after */
const HOURS = 72
const H0 = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR
const out = tmpDir()

type Row = Record<string, number | string>

const get = (path: string, key = pro, init: RequestInit = {}) =>
  fetch(`${srv.base}${path}`, { ...init, headers: { 'x-api-key': key } })

beforeAll(async () => {
  // one export at a time (pool 2): merged partitions are then read pinned, without FINAL
  srv = await startTestServer({ EXPORT_MAX_CONCURRENT: '1' })
  pro = (await srv.running.ctx.keys.create('pro', 'p')).key
  trader = (await srv.running.ctx.keys.create('trader', 't')).key
  const rows = exportTrades('EXA', 'EXB', H0)
  await ingestRecords(srv.base, 'trade', rows)
})
afterAll(async () => {
  await srv.stop()
  out.cleanup()
})

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

/**
 * Candles of `markets` for `count` buckets of `stepS` seconds from `start` (epoch s), written by three inserts
 * (three parts): each holds two thirds of every market's buckets, so most candles are split over two parts
 * (partial states: open/close from different times, volumes summed). Prices start at `price`.
 */
async function insertSplitCandles(
  table: string,
  markets: readonly string[],
  start: number,
  count: number,
  stepS: number,
  price: number
): Promise<void> {
  for (const part of [0, 1, 2]) {
    await srv.running.ctx.store.command(
      `INSERT INTO ${table}
       SELECT base, 'binance', concat(base, 'USDT'), toDateTime(${start} + k * ${stepS}, 'UTC'),
         argMinState(p, t), max(p), min(p), argMaxState(p, t), sum(1.0), sum(p), sum(0.5), toUInt64(1)
       FROM (
         SELECT arrayJoin(['${markets.join("','")}']) AS base, number AS k,
           toDateTime64(${start} + k * ${stepS}, 3, 'UTC') + toIntervalSecond(${part} * 10) AS t,
           ${price} + k / 1000 + ${part} + length(base) AS p
         FROM numbers(${count}) WHERE (k + ${part}) % 3 != 0
       ) GROUP BY base, k, t, p`
    )
  }
}

/**
 * Hours [first, first + count) after `start` (epoch s) of every market (binance, `<base>USDT`) as one
 * insert into candles_1h; each state's time is `offsetS` into its hour (later states win argMax);
 * `level0` writes with optimize_on_insert 0 (a level-0 part, as the ingest path writes).
 */
async function insertHours(
  markets: readonly string[],
  start: number,
  first: number,
  count: number,
  price: number,
  offsetS: number,
  level0 = false
): Promise<void> {
  await srv.running.ctx.store.command(
    `INSERT INTO candles_1h ${level0 ? 'SETTINGS optimize_on_insert = 0' : ''}
     SELECT base, 'binance', concat(base, 'USDT'), toDateTime(${start} + k * 3600, 'UTC'),
       argMinState(p, t), max(p), min(p), argMaxState(p, t), sum(1.0), sum(p), sum(0.5), toUInt64(1)
     FROM (
       SELECT arrayJoin(['${markets.join("','")}']) AS base, ${first} + number AS k,
         toDateTime64(${start} + k * 3600 + ${offsetS}, 3, 'UTC') AS t, ${price} + k / 1000 + length(base) AS p
       FROM numbers(${count})
     ) GROUP BY base, k, t, p`
  )
}

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

  /**
   * Hourly candles of `markets` over a month boundary (always in the past, within 1h's 1-year lookback):
   * the earlier month compacted to one part, the later one left in the 3 parts of 3 inserts.
   */
  async function twoMonths(markets: readonly string[]): Promise<{ from: number; to: number; merged: string }> {
    const now = new Date()
    const boundary = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1) / 1000
    const start = boundary - 2 * 86_400
    await insertSplitCandles('candles_1h', markets, start, HOURS, 3600, 200)
    const merged = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    await srv.running.ctx.store.command(`OPTIMIZE TABLE candles_1h PARTITION ID '${merged}' FINAL`)
    return { from: start * 1000, to: (start + HOURS * 3600) * 1000, merged }
  }

  async function groupedReference(markets: readonly string[]): Promise<Row[]> {
    return srv.running.ctx.store.query<Row>(
      `SELECT toInt64(toUnixTimestamp(bucket)) * 1000 AS timestamp, exchange, symbol, base,
         argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
         sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(trades) AS trades
       FROM candles_1h WHERE base IN ('${markets.join("','")}')
       GROUP BY base, exchange, symbol, bucket ORDER BY base, exchange, symbol, bucket`
    )
  }

  /**
   * The store as the export sees it, recording every streamed statement and counting the streams still
   * open; `afterPin` runs once after the pin; with `failCheck` the pin check query fails.
   */
  function recordingStore(
    afterPin?: () => Promise<void>,
    failCheck = false
  ): { store: Store; streamed: string[]; open: () => number } {
    const real = srv.running.ctx.store
    const streamed: string[] = []
    let pinned = false
    let open = 0
    const store: Store = Object.create(real)
    store.query = async <T>(sql: string, params?: Params): Promise<T[]> => {
      if (failCheck && sql.includes('name IN {parts:Array(String)}')) throw new Error('check failed')
      const rows = await real.query<T>(sql, params)
      if (!pinned && sql.includes('AS max_s')) {
        pinned = true
        await afterPin?.()
      }
      return rows
    }
    store.stream = (sql: string, params: Params | undefined, format: string, signal?: AbortSignal) => {
      streamed.push(sql)
      const chunks = real.stream(sql, params, format, signal)
      return (async function* () {
        open++
        try {
          yield* chunks
        } finally {
          open--
        }
      })()
    }
    return { store, streamed, open: () => open }
  }

  /** The hourly export of `markets` (binance, `<base>USDT`) over [from, to), pinned, as the route runs it. */
  async function exportRows(store: Store, markets: readonly string[], from: number, to: number): Promise<Row[]> {
    const run = runCandleExport(
      store,
      {
        timeframe: '1h',
        markets: markets.map((base) => ({ base, exchange: 'binance', symbol: `${base}USDT` })),
        fromMs: from,
        toMs: to,
        format: 'ndjson',
        tmpDir: out.dir,
        synthetic: false,
        pinMerged: true
      },
      { onPinRestart: () => srv.running.ctx.exports.pinRestarts++ }
    )
    const body = await primed(run)
    let text = ''
    for await (const chunk of body) text += Buffer.from(chunk).toString()
    return text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row)
  }

  it('reads partitions that are one merged part without FINAL, the others with FINAL: every row once', async () => {
    const markets = ['PNA', 'PNB', 'PNC']
    const { from, to, merged } = await twoMonths(markets)
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', from / 1000, to / 1000)
    const mergedPart = await srv.running.ctx.store.query<{ name: string }>(
      `SELECT name FROM system.parts WHERE table = 'candles_1h' AND active AND partition_id = {p:String}`,
      { p: merged }
    )
    expect(mergedPart.length).toBe(1)
    expect(pin.parts).toContain(mergedPart[0]!.name)
    const reference = await groupedReference(markets)
    expect(reference.length).toBe(markets.length * HOURS)

    const { store, streamed } = recordingStore()
    expect(await exportRows(store, markets, from, to)).toEqual(reference)
    // one statement, the pinned one: merged part read as is, the split month through FINAL
    expect(streamed.length).toBe(1)
    expect(streamed[0]).toContain('_part IN {parts:Array(String)}')
    expect(streamed[0]).toContain('FINAL PREWHERE bucket >=')

    // the same export through HTTP, pinned too (EXPORT_MAX_CONCURRENT 1 < pool 2): the statements the
    // server streams are watched on the real store
    const real = srv.running.ctx.store
    const served: string[] = []
    const stream = real.stream
    real.stream = function (this: Store, ...args: Parameters<Store['stream']>) {
      served.push(args[0])
      return stream.apply(this, args)
    }
    const restarts = srv.running.ctx.exports.pinRestarts
    const res = await get(
      `/v1/backtest/export?symbols=${markets.join(',')}&timeframe=1h&start_time=${from}&end_time=${to}&format=json`
    )
    const rows = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row)
    real.stream = stream
    expect(rows).toEqual(reference)
    expect(served.length).toBe(1)
    expect(served[0]).toContain('_part IN {parts:Array(String)}')
    expect(srv.running.ctx.exports.pinRestarts).toBe(restarts)
  })

  it('a partition that is one unmerged insert part (level 0, equal keys not folded) is read with FINAL', async () => {
    // optimize_on_insert=0 (the ingest path's setting) writes a level-0 part that may repeat a key
    const start = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 3, 10) / 1000
    await srv.running.ctx.store.command(
      `INSERT INTO candles_1h SETTINGS optimize_on_insert = 0
       SELECT 'LZA', 'binance', 'LZAUSDT', toDateTime(${start}, 'UTC'), argMinState(p, t), max(p), min(p),
         argMaxState(p, t), sum(1.0), sum(p), sum(0.5), toUInt64(1)
       FROM (SELECT toFloat64(number + 1) AS p, toDateTime64(${start} + number, 3, 'UTC') AS t FROM numbers(2))
       GROUP BY p, t`
    )
    const month = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    const parts = await srv.running.ctx.store.query<{ level: number; rows: number }>(
      `SELECT level, rows FROM system.parts WHERE table = 'candles_1h' AND active AND partition_id = {p:String}`,
      { p: month }
    )
    expect(parts).toEqual([{ level: 0, rows: 2 }])
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', start, start + 3600)
    expect(pin.parts).toEqual([])
    const rows = await exportRows(srv.running.ctx.store, ['LZA'], start * 1000, (start + 3600) * 1000)
    expect(rows).toEqual([
      expect.objectContaining({ base: 'LZA', timestamp: start * 1000, open: 1, close: 2, high: 2, low: 1, trades: 2 })
    ])
  })

  it('a month that is one merged part plus later live parts: merged rows before the cut read as they are, the rest with FINAL', async () => {
    // the shape after a bulk load's compaction while live ingest goes on: one merged part, then small
    // parts from the hour the merged part ends in (one key in both), all in the same month
    const markets = ['LVA', 'LVB']
    const now = new Date()
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 3) / 1000
    await insertSplitCandles('candles_1h', markets, start, 48, 3600, 300)
    const month = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    await srv.running.ctx.store.command(`OPTIMIZE TABLE candles_1h PARTITION ID '${month}' FINAL`)
    const lastHour = start + 47 * 3600
    // live parts: the merged part's last hour again (a key in both parts, later states) and two hours after it
    await insertHours(markets, start, 47, 3, 900, 1800)
    await insertHours(markets, start, 48, 2, 950, 1900)
    const parts = await srv.running.ctx.store.query<{ name: string; level: number; min_s: number }>(
      `SELECT name, level, toUnixTimestamp(min_time) AS min_s FROM system.parts
       WHERE table = 'candles_1h' AND active AND partition_id = {p:String} ORDER BY rows DESC`,
      { p: month }
    )
    expect(parts.length).toBeGreaterThan(1)
    const from = start * 1000
    const to = (start + 50 * 3600) * 1000
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', from / 1000, to / 1000)
    expect(pin.parts).toEqual([parts[0]!.name])
    expect(pin.cutS).toBe(lastHour)

    const reference = await groupedReference(markets)
    expect(reference.length).toBe(markets.length * 50)
    // the key in both parts merged: prices of the live parts (900+) beat the merged part's for high
    expect(reference.find((r) => r['base'] === 'LVA' && r['timestamp'] === lastHour * 1000)!['high']).toBeGreaterThan(
      900
    )
    const { store, streamed } = recordingStore()
    const restarts = srv.running.ctx.exports.pinRestarts
    expect(await exportRows(store, markets, from, to)).toEqual(reference)
    expect(streamed.length).toBe(1)
    expect(streamed[0]).toContain('_part IN {parts:Array(String)}')
    expect(streamed[0]).toContain('FINAL PREWHERE bucket >=')
    expect(srv.running.ctx.exports.pinRestarts).toBe(restarts)
    // the same rows, byte for byte, as the export with FINAL everywhere
    const finalOnly = async (pinMerged: boolean, format: 'csv' | 'parquet') => {
      const run = runCandleExport(srv.running.ctx.store, {
        timeframe: '1h',
        markets: markets.map((base) => ({ base, exchange: 'binance', symbol: `${base}USDT` })),
        fromMs: from,
        toMs: to,
        format,
        tmpDir: out.dir,
        synthetic: false,
        pinMerged
      })
      const chunks: Buffer[] = []
      for await (const chunk of run) chunks.push(Buffer.from(chunk))
      return Buffer.concat(chunks)
    }
    expect((await finalOnly(true, 'csv')).equals(await finalOnly(false, 'csv'))).toBe(true)
    const parquetRows = async (bytes: Buffer) => {
      const reader = await openParquet(bytes)
      const cursor = reader.getCursor()
      const rows: Record<string, unknown>[] = []
      for (let row = await cursor.next(); row; row = await cursor.next()) rows.push(row)
      await reader.close()
      return rows
    }
    expect(await parquetRows(await finalOnly(true, 'parquet'))).toEqual(
      await parquetRows(await finalOnly(false, 'parquet'))
    )
  })

  it('merged parts of consecutive hours in one month (a bulk load before its compaction) are all pinned', async () => {
    const markets = ['CNA', 'CNB']
    const now = new Date()
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 4, 12) / 1000
    // no background merge may fold the slices before the pin is taken
    await srv.running.ctx.store.command('SYSTEM STOP MERGES candles_1h')
    try {
      await insertHours(markets, start, 0, 24, 100, 10)
      await insertHours(markets, start, 24, 24, 200, 20)
      await insertHours(markets, start, 47, 3, 900, 1800, true) // the second slice's last hour again, then two more
      await consecutiveSlices(markets, start)
    } finally {
      await srv.running.ctx.store.command('SYSTEM START MERGES candles_1h')
    }
  })

  async function consecutiveSlices(markets: readonly string[], start: number): Promise<void> {
    const month = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    const parts = await srv.running.ctx.store.query<{ name: string; level: number }>(
      `SELECT name, level FROM system.parts WHERE table = 'candles_1h' AND active AND partition_id = {p:String}
         AND max_time >= toDateTime(${start}, 'UTC') AND min_time < toDateTime(${start + 50 * 3600}, 'UTC')
       ORDER BY min_time`,
      { p: month }
    )
    expect(parts.map((p) => p.level > 0)).toEqual([true, true, false])
    const from = start * 1000
    const to = (start + 50 * 3600) * 1000
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', from / 1000, to / 1000)
    expect(pin).toEqual({ parts: [parts[0]!.name, parts[1]!.name].sort(), cutS: start + 47 * 3600 })

    const reference = await groupedReference(markets)
    expect(reference.length).toBe(markets.length * 50)
    const { store, streamed } = recordingStore()
    expect(await exportRows(store, markets, from, to)).toEqual(reference)
    expect(streamed[0]).toContain('_part IN {parts:Array(String)}')
  }

  it('a pin check that fails cancels the pinned query before the error goes on', async () => {
    const { from, to } = await twoMonths(['CKA'])
    const { store, streamed, open } = recordingStore(undefined, true)
    await expect(exportRows(store, ['CKA'], from, to)).rejects.toThrow('check failed')
    expect(streamed.length).toBe(1)
    expect(open()).toBe(0)
  })

  it('a pinned part merged away before the query started: the export restarts with FINAL, no row lost', async () => {
    const markets = ['RCA', 'RCB']
    const { from, to, merged } = await twoMonths(markets)
    // between the pin and the query, a late insert lands in the merged month and the month is merged again:
    // the pinned part is gone, so a read of it alone would miss every row of that month
    const { store, streamed } = recordingStore(async () => {
      await srv.running.ctx.store.command(
        `INSERT INTO candles_1h SELECT 'RCA', 'binance', 'RCAUSDT', toDateTime(${from / 1000}, 'UTC'),
           argMinState(toFloat64(1), toDateTime64(${from / 1000} + 3599, 3, 'UTC')), 999.0, 1.0,
           argMaxState(toFloat64(999), toDateTime64(${from / 1000} + 3599, 3, 'UTC')), 5.0, 5.0, 0.0, toUInt64(2)`
      )
      await srv.running.ctx.store.command(`OPTIMIZE TABLE candles_1h PARTITION ID '${merged}' FINAL`)
    })
    const restarts = srv.running.ctx.exports.pinRestarts
    const rows = await exportRows(store, markets, from, to)
    expect(srv.running.ctx.exports.pinRestarts).toBe(restarts + 1)
    const reference = await groupedReference(markets)
    expect(rows).toEqual(reference)
    expect(rows[0]).toMatchObject({ base: 'RCA', timestamp: from, high: 999, close: 999 })
    expect(streamed.length).toBe(2)
    expect(streamed[0]).toContain('_part IN')
    expect(streamed[1]).not.toContain('_part IN')
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
