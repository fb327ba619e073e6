/**
 * `GET|HEAD /v1/backtest/export` in process over a fake store: the parameters bound to the export query,
 * headers (file name, market and row counts, the synthetic label), the body passed through byte for byte,
 * the export slot (taken for GET only, given back at the end, on an error before the first byte and when
 * the client leaves), and the pinning of merged parts with its restart. Real bytes of every format over chDB,
 * the refusals before the first byte and the 503 when every slot is taken: test/integration/backtest-export.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../server/config.js'
import { MarketDirectory } from '../../../engine/history/markets.js'
import { silentLogger } from '../../../engine/log.js'
import type { Params, Store } from '../../../engine/store/store.js'
import { ExportSlots } from '../../../server/export-slots.js'
import { isStreamBody, type HttpResponse } from '../../../server/http/types.js'
import { exportRoutes } from '../../../server/routes/history/export.js'
import { FakeStore, flatSql, type FakeAnswer } from '../../helpers/fake-store.js'
import { jsonOf, readBody, routeApp } from '../../helpers/route-app.js'

const HOUR = 3_600_000
/** a Monday, 00:00 UTC */
const T0 = Date.UTC(2026, 0, 5)
const NOW = T0 + 3 * 24 * HOUR
const RANGE = `start_time=${T0}&end_time=${T0 + 6 * HOUR}`

/** The markets with history (the market directory's query). */
const MARKETS = [
  { base: 'BTC', exchange: 'binance', symbol: 'BTCUSDT' },
  { base: 'BTC', exchange: 'okx', symbol: 'BTC-USDT-SWAP' },
  { base: 'ETH', exchange: 'binance', symbol: 'ETHUSDT' }
]
const CHUNKS = ['{"timestamp":1,"base":"BTC"}\n', '{"timestamp":2,"base":"ETH"}\n']

/** Answers the market directory; `parts` answers the pin queries (system.parts), else none. */
function answers(parts: FakeAnswer = () => []): FakeAnswer {
  return (sql: string, params: Params | undefined) =>
    sql.includes('FROM candles_1d UNION ALL') ? MARKETS : sql.includes('system.parts') ? parts(sql, params) : []
}

interface Setup {
  readonly store: FakeStore
  readonly exports: ExportSlots
  readonly api: ReturnType<typeof routeApp>
  readonly key: string
  /** the export statements streamed */
  streams(): { sql: string; params: Params | undefined; format?: string }[]
}

async function setup(
  opts: {
    readonly store?: FakeStore
    readonly synthetic?: boolean
    /** EXPORT_PIN_MERGED @default '0' */
    readonly pin?: '0' | '1'
  } = {}
): Promise<Setup> {
  const store =
    opts.store ??
    new FakeStore(answers(), {
      stream: async function* () {
        for (const c of CHUNKS) yield Buffer.from(c)
      }
    })
  const config = loadConfig({
    DATA_DIR: '/nonexistent/tidewatch-unit',
    CHDB_POOL_SIZE: '2',
    EXPORT_MAX_CONCURRENT: '1',
    EXPORT_PIN_MERGED: opts.pin ?? '0'
  })
  const exports = new ExportSlots(config.exportMaxConcurrent)
  const ctx = {
    store: store as Store,
    markets: new MarketDirectory(store, () => NOW),
    config,
    log: silentLogger(),
    exports,
    synthetic: opts.synthetic === true
  }
  // the app does not label: the synthetic header and file name checked below are the route's own
  const api = routeApp(exportRoutes(ctx, () => NOW))
  return {
    store,
    exports,
    api,
    key: await api.key('pro'),
    streams: () => store.calls.filter((c) => c.op === 'stream')
  }
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

describe('GET /v1/backtest/export (fake store)', () => {
  it('binds every market of each symbol and the range, and streams the bytes unchanged', async () => {
    const s = await setup()
    const res = await s.api.request(`/v1/backtest/export?symbols=BTC,ETH&timeframe=1h&${RANGE}&format=json`, {
      key: s.key
    })
    expect(res.status).toBe(200)
    expect(res.headers).toMatchObject({
      'content-type': 'application/x-ndjson',
      'content-disposition': `attachment; filename="tidewatch_BTC-ETH_1h_${day(T0)}_${day(T0 + 6 * HOUR)}.ndjson"`,
      'x-export-markets': '3',
      'x-export-max-rows': String(3 * 6)
    })
    expect(res.headers['x-tidewatch-synthetic']).toBeUndefined()
    expect(s.exports.inUse).toBe(1) // held while the client reads
    expect((await readBody(res)).toString()).toBe(CHUNKS.join(''))
    expect(s.exports.inUse).toBe(0)
    const [stmt, ...more] = s.streams()
    expect(more).toEqual([])
    expect(stmt!.format).toBe('JSONEachRow')
    expect(stmt!.params).toEqual({
      ex: ['binance', 'okx', 'binance'],
      sym: ['BTCUSDT', 'BTC-USDT-SWAP', 'ETHUSDT'],
      bases: ['BTC', 'ETH'],
      from: T0 / 1000,
      to: (T0 + 6 * HOUR) / 1000
    })
    const sql = flatSql(stmt!.sql)
    expect(sql).toContain('FROM candles_1h FINAL WHERE base IN {bases:Array(String)}')
    expect(sql).not.toContain('_part IN')
    expect(sql).not.toMatch(/BTCUSDT|'BTC'/) // markets are bound, not in the text
  })

  it('exchange keeps that venue only; an end past now stops at the last closed bucket', async () => {
    const s = await setup()
    const res = await s.api.request(
      `/v1/backtest/export?symbols=BTC&exchange=okx&timeframe=1h&start_time=${NOW - 2 * HOUR}&end_time=${NOW + 5 * HOUR}&format=json`,
      { key: s.key }
    )
    expect(res.status).toBe(200)
    await readBody(res)
    expect(res.headers['x-export-markets']).toBe('1')
    expect(res.headers['x-export-max-rows']).toBe('2')
    expect(s.streams()[0]!.params).toMatchObject({ ex: ['okx'], sym: ['BTC-USDT-SWAP'], to: NOW / 1000 })
  })

  it('HEAD: the same headers, no body, no slot and no query', async () => {
    const s = await setup()
    const hold = s.exports.take() // every slot taken: HEAD still answers
    const res = await s.api.request(`/v1/backtest/export?symbols=BTC,ETH&timeframe=1h&${RANGE}&format=parquet`, {
      key: s.key,
      method: 'HEAD'
    })
    expect(res.status).toBe(200)
    expect(res.headers).toMatchObject({
      'content-type': 'application/vnd.apache.parquet',
      'content-disposition': `attachment; filename="tidewatch_BTC-ETH_1h_${day(T0)}_${day(T0 + 6 * HOUR)}.parquet"`,
      'x-export-markets': '3'
    })
    expect((await readBody(res)).length).toBe(0)
    expect(s.streams()).toEqual([])
    expect(s.exports.stats()).toMatchObject({ active: 1, rejected: 0 })
    hold()
  })

  it('synthetic data: the header and the tidewatch_SYNTHETIC_ file name, on GET and HEAD', async () => {
    const s = await setup({ synthetic: true })
    for (const method of ['HEAD', 'GET']) {
      const res = await s.api.request(`/v1/backtest/export?symbols=ETH&timeframe=1h&${RANGE}&format=json`, {
        key: s.key,
        method
      })
      expect(res.status, method).toBe(200)
      expect(res.headers['x-tidewatch-synthetic'], method).toBe('true')
      expect(res.headers['content-disposition'], method).toBe(
        `attachment; filename="tidewatch_SYNTHETIC_ETH_1h_${day(T0)}_${day(T0 + 6 * HOUR)}.ndjson"`
      )
      await readBody(res)
    }
  })

  it('a query failing before the first byte answers a JSON error and gives the slot back', async () => {
    const store = new FakeStore(answers(), {
      // eslint-disable-next-line require-yield
      stream: async function* () {
        throw new Error('Code: 62. Syntax error near SELECT')
      }
    })
    const s = await setup({ store })
    const res = await s.api.request(`/v1/backtest/export?symbols=BTC&timeframe=1h&${RANGE}&format=json`, {
      key: s.key
    })
    expect(res.status).toBe(500)
    expect(jsonOf(res).error.code).toBe('internal')
    expect(String(res.body)).not.toContain('SELECT')
    expect(s.exports.inUse).toBe(0)
    expect(store.openStreams).toBe(0)
  })

  it('a client gone before reading closes the query and gives the slot back', async () => {
    const s = await setup()
    const res: HttpResponse = await s.api.request(`/v1/backtest/export?symbols=BTC&timeframe=1h&${RANGE}&format=json`, {
      key: s.key
    })
    expect(res.status).toBe(200)
    expect(s.store.openStreams).toBe(1) // the first chunk was pulled before answering
    if (!isStreamBody(res.body)) throw new Error('a streamed body expected')
    await (res.body.stream as AsyncIterableIterator<Uint8Array>).return!()
    expect(s.store.openStreams).toBe(0)
    expect(s.exports.inUse).toBe(0)
  })
})

describe('export pinning of merged parts (fake store)', () => {
  /** one merged part (level 2) holding the month's buckets from T0 on: the only part in the range */
  const PIN = {
    partition_id: '202601',
    name: '202601_1_9_2',
    level: 2,
    rows: 100,
    min_s: T0 / 1000,
    max_s: T0 / 1000 + 30 * 24 * 3600
  }
  /** the pin finds PIN; the check after the first chunk finds `stillActive` of it active */
  function pinStore(stillActive: number): FakeStore {
    return new FakeStore(
      answers((sql) => (sql.includes('AS max_s') ? [PIN] : [{ n: stillActive }])),
      {
        stream: async function* () {
          for (const c of CHUNKS) yield Buffer.from(c)
        }
      }
    )
  }
  const GET = `/v1/backtest/export?symbols=BTC&timeframe=1h&${RANGE}&format=json`

  it('reads the pinned part without FINAL when it is still active after the first chunk', async () => {
    const store = pinStore(1)
    const s = await setup({ store, pin: '1' })
    const res = await s.api.request(GET, { key: s.key })
    expect((await readBody(res)).toString()).toBe(CHUNKS.join(''))
    const [stmt, ...more] = s.streams()
    expect(more).toEqual([])
    expect(flatSql(stmt!.sql)).toContain('WHERE _part IN {parts:Array(String)}')
    // no other part: every row of the range is read from the pinned part (cut = the range's end)
    expect(stmt!.params).toMatchObject({ parts: [PIN.name], cut: (T0 + 6 * HOUR) / 1000, from: T0 / 1000 })
    const pinQueries = store.queries.filter((q) => q.sql.includes('system.parts'))
    expect(pinQueries.map((q) => q.params?.['table'])).toEqual(['candles_1h', 'candles_1h'])
    expect(pinQueries[1]!.params).toMatchObject({ parts: [PIN.name] })
    expect(s.exports.pinRestarts).toBe(0)
  })

  it('a pinned part merged away: the pinned query is closed, the export restarts with FINAL and counts it', async () => {
    const store = pinStore(0)
    const s = await setup({ store, pin: '1' })
    const res = await s.api.request(GET, { key: s.key })
    expect(res.status).toBe(200)
    expect(s.exports.pinRestarts).toBe(1)
    expect((await readBody(res)).toString()).toBe(CHUNKS.join('')) // only the restarted query's bytes
    const [pinned, restarted, ...more] = s.streams()
    expect(more).toEqual([])
    expect(pinned!.sql).toContain('_part IN')
    expect(restarted!.sql).not.toContain('_part IN')
    expect(restarted!.params).not.toHaveProperty('parts')
    expect(store.openStreams).toBe(0)
    expect(s.exports.inUse).toBe(0)
  })

  it('no pinning on a ClickHouse server, nor with EXPORT_PIN_MERGED=0', async () => {
    for (const [kind, pin] of [
      ['clickhouse', '1'],
      ['chdb', '0']
    ] as const) {
      const store = new FakeStore(
        answers(() => [PIN]),
        { kind }
      )
      const s = await setup({ store, pin })
      await readBody(await s.api.request(GET, { key: s.key }))
      expect(
        store.queries.filter((q) => q.sql.includes('system.parts')),
        kind
      ).toEqual([])
      expect(s.streams()[0]!.sql, kind).not.toContain('_part IN')
    }
  })
})
