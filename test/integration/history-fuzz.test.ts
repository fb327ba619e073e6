/**
 * Fuzzed historical and backtest requests over a real socket and a real chDB store: every route of server/routes/history/index.ts, parameters drawn per their schema from
 * the whole int64 range, near the epoch, negative, huge and at boundaries (timestamps, start/end times,
 * cursors, limits), spans of every unit and size (lookbacks, intervals), dates of years 0000 to 9999.
 * Never a 5xx; every 4xx is the error envelope {"error":{"code","message","param"?}} with a catalogued code,
 * its status, and a `param` the route takes. Plus fixed cases: the reported 500s, the epoch edges, cursors.
 *
 * Deterministic: a fixed seed (HISTORY_FUZZ_SEED overrides; fast-check prints seed and path on failure) and
 * a fixed number of runs per route (HISTORY_FUZZ_RUNS). Values near now are drawn as offsets from the start
 * of the current UTC day, so the same seed draws the same requests all day.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fc from 'fast-check'
import type { TObject } from '@sinclair/typebox'
import { ERROR_STATUS } from '../../engine/errors.js'
import type { Route } from '../../server/http/types.js'
import { historyRoutes } from '../../server/routes/history/index.js'
import { ingestRecords, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { plainQuery, queryOf, TODAY } from '../helpers/history-params.js'
import { whaleRow } from '../helpers/whale-row.js'

const SEED = Number(process.env['HISTORY_FUZZ_SEED'] ?? 20_260_118)
const RUNS = Number(process.env['HISTORY_FUZZ_RUNS'] ?? 250)

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

type Json = Record<string, unknown>
type PlanName = 'enterprise' | 'pro'

let srv: Awaited<ReturnType<typeof startTestServer>>
let routes: readonly Route[] = []
const keys: Record<PlanName, string> = { enterprise: '', pro: '' }

async function createKey(plan: PlanName): Promise<string> {
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan, name: `history-fuzz-${plan}` })
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { key: string }).key
}

const MARKETS = [
  { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC' },
  { exchange: 'bybit', symbol: 'BTCUSDT', base: 'BTC' },
  { exchange: 'okx', symbol: 'BTC-USDT-SWAP', base: 'BTC' },
  { exchange: 'binance', symbol: 'ETHUSDT', base: 'ETH' }
] as const

/**
 * Some rows of every kind the historical routes read, over the last three days. None near 1970: the admin
 * ingest refuses or misreads times before 2001-09-09 (13-digit ms), a separate issue.
 */
async function ingestSample(): Promise<void> {
  const times = Array.from({ length: 36 }, (_, i) => TODAY - 3 * DAY + i * 2 * HOUR + 7 * MIN)
  await ingestRecords(
    srv.base,
    'trade',
    MARKETS.flatMap((m, j) =>
      times.map((ts, i) => ({
        ...m,
        market: 'perp',
        quote: 'USDT',
        side: i % 2 ? 'buy' : 'sell',
        ts,
        price: 100 + i + j,
        qty: 1 + (i % 3),
        trade_id: `${m.exchange}-${m.symbol}-${i}`
      }))
    )
  )
  await ingestRecords(
    srv.base,
    'funding',
    MARKETS.flatMap((m) => times.map((ts, i) => ({ ...m, ts, funding_rate: (i % 5) / 10_000, interval_hours: 8 })))
  )
  await ingestRecords(
    srv.base,
    'open_interest',
    MARKETS.flatMap((m) => times.map((ts, i) => ({ ...m, ts, oi_base: 10 + i, oi_usd: 1_000 * (10 + i) })))
  )
  await ingestRecords(
    srv.base,
    'whale_transfer',
    times.map((ts, i) =>
      whaleRow({
        ts,
        token: i % 2 ? 'BTC' : 'WBTC',
        event_type: i % 3 ? 'transfer_in' : 'transfer_out',
        usd_value: 1_000_000 + i,
        tx_hash: `0xf${i}`
      })
    )
  )
}

beforeAll(async () => {
  srv = await startTestServer()
  keys.enterprise = await createKey('enterprise')
  keys.pro = await createKey('pro')
  await ingestSample()
  routes = historyRoutes(srv.running.ctx)
})
afterAll(async () => {
  await srv.stop()
})

// the check

interface Outcome {
  readonly status: number
  readonly body: Json | null
}

/**
 * Sends one request and checks what every answer must satisfy: no 5xx; a 4xx is the envelope with a
 * catalogued code, its status, a message and, when given, a `param` the route takes; a 200 body (JSON or
 * an export file) arrives whole.
 */
async function check(route: Route, query: Record<string, string>, key: string, method = 'GET'): Promise<Outcome> {
  const url = `${srv.base}${route.path}?${new URLSearchParams(query)}`
  const label = `${method} ${url}`
  const res = await fetch(url, { method, headers: { 'x-api-key': key } })
  const text = await res.text() // an export cut short mid-stream rejects here
  expect(res.status, `${label}: ${text.slice(0, 300)}`).toBeLessThan(500)
  if (method === 'HEAD') return { status: res.status, body: null }
  const isJson = (res.headers.get('content-type') ?? '').startsWith('application/json')
  if (res.status >= 400) {
    expect(isJson, label).toBe(true)
    const body = JSON.parse(text) as Json
    expect(Object.keys(body), label).toEqual(['error'])
    const err = body['error'] as Json
    const code = err['code'] as keyof typeof ERROR_STATUS
    expect(ERROR_STATUS[code], `${label}: code ${String(code)}`).toBe(res.status)
    expect(typeof err['message'] === 'string' && err['message'].length > 0, label).toBe(true)
    if (err['param'] !== undefined) {
      expect(Object.keys((route.query as TObject).properties), `${label}: param`).toContain(err['param'])
    }
    return { status: res.status, body }
  }
  expect(res.status, label).toBe(200)
  return { status: 200, body: isJson && !route.path.endsWith('/export') ? (JSON.parse(text) as Json) : null }
}

const routeAt = (path: string): Route => {
  const r = routes.find((x) => x.path === path)
  if (!r) throw new Error(`no history route ${path}`)
  return r
}

// tests

describe('historical routes: fixed cases at the edges', () => {
  it('lists every route of the historical and backtest groups', () => {
    const paths = routes.map((r) => r.path).sort()
    expect(paths).toEqual(
      srv.running.app.routes
        .map((r) => r.path)
        .filter((p) => p.startsWith('/v1/historical/') || p.startsWith('/v1/backtest/'))
        .sort()
    )
    expect(paths.length).toBeGreaterThanOrEqual(12)
  })

  it('the reported 500s answer 200 with nothing in them (nothing exists before 1970)', async () => {
    const key = keys.enterprise
    const multi = await check(
      routeAt('/v1/historical/ohlcv/multi'),
      { symbol: 'BTC', timeframes: '1h', timestamp: '1' },
      key
    )
    expect(multi.status).toBe(200)
    expect(multi.body).toMatchObject({ data: [], meta: { missing: ['1h'] } })
    const ohlcv = await check(routeAt('/v1/historical/ohlcv'), { symbol: 'BTC', timeframe: '1M', end_time: '0' }, key)
    expect(ohlcv).toMatchObject({ status: 200, body: { data: [], gaps: [], next_cursor: null } })
    expect(ohlcv.body!['meta']).toMatchObject({ start: 0, end: 0, rows: 0 })
    const res = await fetch(`${srv.base}/v1/backtest/export?symbols=BTC&timeframe=1M&format=csv&end_time=0`, {
      headers: { 'x-api-key': key }
    })
    expect(res.status).toBe(200)
    expect((await res.text()).trim().split('\n')).toHaveLength(1) // the header alone
  })

  it('ranges reaching before 1970 are cut at the epoch; wholly before it they are empty', async () => {
    const key = keys.enterprise
    const cut = await check(
      routeAt('/v1/historical/ohlcv'),
      { symbol: 'BTC', timeframe: '1h', lookback: '2h', end_time: String(HOUR) },
      key
    )
    expect(cut.body!['meta']).toMatchObject({ start: 0, end: HOUR })
    for (const [start, end, rows] of [
      ['1969-12-01', '1969-12-31', 0],
      ['1969-12-31', '1970-01-01', 1],
      ['0100-01-01', '0100-12-31', 0]
    ] as const) {
      const data = await check(routeAt('/v1/backtest/data'), { symbols: 'BTC', timeframe: '1d', start, end }, key)
      expect(data.status, `${start}..${end}`).toBe(200)
      expect((data.body!['data'] as unknown[]).length, `${start}..${end}`).toBe(rows)
      const corr = await check(
        routeAt('/v1/historical/correlated-data'),
        { asset: 'BTC', start_time: start, end_time: end },
        key
      )
      expect((corr.body!['data'] as unknown[]).length, `${start}..${end}`).toBe(rows)
    }
    // a timestamp less than one bucket after 1970: no closed candle can exist, so none is searched for
    for (const timestamp of ['0', '1', String(HOUR - 1)]) {
      const m = await check(routeAt('/v1/historical/ohlcv/multi'), { symbol: 'BTC', timestamp }, key)
      expect(m.body!['meta']).toMatchObject({ timestamp: Number(timestamp) })
    }
  })

  it('bounds past 2106 (the DateTime span) are clamped, not refused by the store', async () => {
    const key = keys.enterprise
    const far = { start_time: String(5_000_000_000_000), end_time: String(5_000_000_600_000) }
    expect((await check(routeAt('/v1/historical/ohlcv'), { symbol: 'BTC', timeframe: '1m', ...far }, key)).status).toBe(
      200
    )
    const exp = await check(
      routeAt('/v1/backtest/export'),
      { symbols: 'BTC', timeframe: '1m', format: 'csv', ...far },
      key
    )
    expect(exp.status).toBe(200)
  })

  it('inputs that make no sense are 400s naming the parameter', async () => {
    const ohlcv = routeAt('/v1/historical/ohlcv')
    const cases: [Record<string, string>, string, PlanName][] = [
      [{ start_time: '5', end_time: '5' }, 'start_time', 'enterprise'],
      [{ start_time: String(TODAY), end_time: String(TODAY - HOUR) }, 'start_time', 'enterprise'],
      [{ end_time: '0' }, 'end_time', 'pro'], // before the pro plan's 730 days
      [{ lookback: '100000y', end_time: '1000' }, 'lookback', 'enterprise'],
      [{ end_time: '-1' }, 'end_time', 'enterprise'],
      [{ start_time: String(2n ** 63n - 1n) }, 'start_time', 'enterprise']
    ]
    for (const [q, param, plan] of cases) {
      const out = await check(ohlcv, { symbol: 'BTC', timeframe: '1h', ...q }, keys[plan])
      expect([out.status, (out.body!['error'] as Json)['param']], JSON.stringify(q)).toEqual([400, param])
    }
  })

  it('a malformed or out-of-range cursor is a 400 invalid_parameter naming cursor', async () => {
    const ohlcv = routeAt('/v1/historical/ohlcv')
    const range = { symbol: 'BTC', timeframe: '1h', start_time: String(TODAY - 2 * DAY), end_time: String(TODAY) }
    const bad = [
      'abc',
      '',
      '1.5',
      '1e3',
      '-1',
      '0x10',
      ' 1',
      String(2n ** 63n),
      String(-(2n ** 63n)),
      '99999999999999999',
      '10000000000000',
      '0',
      String(TODAY - 2 * DAY - 1),
      String(TODAY + 1),
      String(TODAY + DAY)
    ]
    for (const cursor of bad) {
      const out = await check(ohlcv, { ...range, cursor }, keys.enterprise)
      expect(out.status, `cursor=${cursor}`).toBe(400)
      expect(out.body!['error'], `cursor=${cursor}`).toMatchObject({ code: 'invalid_parameter', param: 'cursor' })
    }
    // the range's own ends are valid cursors: the first page, and an empty last one
    for (const cursor of [range.start_time, range.end_time, String(TODAY - DAY + 1)]) {
      expect((await check(ohlcv, { ...range, cursor, limit: '5' }, keys.enterprise)).status, cursor).toBe(200)
    }
  })
})

describe('historical routes: fuzzed parameters', () => {
  it('never answer a 5xx, and every 4xx is the error envelope', async () => {
    const seen = new Map<string, Map<number, number>>()
    for (const route of routes) {
      const counts = new Map<number, number>()
      seen.set(route.path, counts)
      const methods = route.path.endsWith('/export') ? fc.constantFrom('GET', 'GET', 'GET', 'HEAD') : fc.constant('GET')
      await fc.assert(
        fc.asyncProperty(
          queryOf(route),
          fc.constantFrom<PlanName>('enterprise', 'pro'),
          methods,
          async (q, plan, method) => {
            const out = await check(route, q, keys[plan], method)
            counts.set(out.status, (counts.get(out.status) ?? 0) + 1)
          }
        ),
        { numRuns: RUNS, seed: SEED, examples: [[plainQuery(route), 'enterprise' as PlanName, 'GET']] }
      )
    }
    const summary = JSON.stringify([...seen].map(([p, c]) => [p, Object.fromEntries(c)]))
    // each route answered with data (its plain example at least) and refused some draws
    for (const [path, counts] of seen) {
      expect(counts.get(200) ?? 0, `${path} in ${summary}`).toBeGreaterThan(0)
      expect(counts.get(400) ?? 0, `${path} in ${summary}`).toBeGreaterThan(0)
    }
    // the draws reach the handlers, not only the validator: many are answered, across the routes
    const answered = [...seen.values()].reduce((n, c) => n + (c.get(200) ?? 0), 0)
    expect(answered, summary).toBeGreaterThan(5 * seen.size)
  }, 120_000)
})
