/**
 * The funding history endpoints over a real server and chDB: records posted through the admin ingest API,
 * answers compared with the same quantities computed here directly from the posted rows.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody } from '../helpers/server.js'
import { mulberry32 } from '../helpers/mulberry32.js'
import { createKey, sharedServer } from '../helpers/shared-server.js'

const SEED = 20250310
const HOUR = 3_600_000
const DAY = 24 * HOUR
const PATH = '/v1/historical/derivatives'

const srv = sharedServer()
let trader = ''
let free = ''
const get = (path: string, key = trader) => fetch(`${srv.base}${path}`, { headers: key ? { 'x-api-key': key } : {} })

interface Row {
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  readonly ts: number
  readonly funding_rate: number
  readonly interval_hours: number
}

const H0 = Math.floor(Date.now() / HOUR) * HOUR
const BN = { exchange: 'binance', symbol: 'XMRUSDT', base: 'XMR' }
const OKX = { exchange: 'okx', symbol: 'XMR-USDT-SWAP', base: 'XMR' }
const GAP_HOURS = new Set([10, 11, 12]) // hours ago without binance readings
const ZERO_HOUR = 5 // hours ago whose last binance reading is exactly 0

function makeRows(): Row[] {
  const r = mulberry32(SEED) // deterministic rates; the seed is in the test names
  const rate = () => Math.round((r() - 0.4) * 1e6) / 1e9 // -0.0004 .. 0.0006, 1e-9 steps
  const rows: Row[] = []
  for (let ago = 40; ago >= 1; ago--) {
    const hour = H0 - ago * HOUR
    if (!GAP_HOURS.has(ago)) {
      for (const min of [5, 25, 45]) {
        const last = min === 45 && ago === ZERO_HOUR
        rows.push({ ...BN, ts: hour + min * 60_000, funding_rate: last ? 0 : rate(), interval_hours: 8 })
      }
    }
    rows.push({ ...OKX, ts: hour + 30 * 60_000 + ago, funding_rate: rate(), interval_hours: 4 })
  }
  return rows
}
const ROWS = makeRows()

/** Direct computation: the readings of one market in [t, t + width). */
function readings(market: { exchange: string }, t: number, width: number): Row[] {
  return ROWS.filter((x) => x.exchange === market.exchange && x.ts >= t && x.ts < t + width).sort((a, b) => a.ts - b.ts)
}

function expectedCell(market: { exchange: string }, t: number, width: number) {
  const rs = readings(market, t, width)
  if (rs.length === 0) return { timestamp: t, rate: null, rate_annualized: null, readings: 0, interval_hours: null }
  const rate = rs.at(-1)!.funding_rate
  const h = rs[0]!.interval_hours
  return {
    timestamp: t,
    rate,
    rate_annualized: (rate * 8760) / h,
    rate_8h: (rate * 8) / h,
    rate_avg: rs.reduce((s, x) => s + x.funding_rate, 0) / rs.length,
    rate_min: Math.min(...rs.map((x) => x.funding_rate)),
    rate_max: Math.max(...rs.map((x) => x.funding_rate)),
    readings: rs.length,
    interval_hours: h
  }
}

/** Cells equal within float noise (avgMerge and the 8760/h products round differently). */
function expectCell(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(expected)) {
    if (typeof v === 'number' && !Number.isInteger(v)) expect(actual[k] as number, k).toBeCloseTo(v, 12)
    else expect(actual[k], k).toBe(v)
  }
}

beforeAll(async () => {
  trader = await createKey(srv.base, 'trader', 't')
  free = await createKey(srv.base, 'free', 'f')
  await ingestRecords(srv.base, 'funding', ROWS)
  await srv.invalidateMarkets()
})

describe(`GET ${PATH}/funding-heatmap (seed ${SEED})`, () => {
  it('answers a dense hourly grid equal to a direct computation, null for missing and 0 for zero', async () => {
    const res = await get(`${PATH}/funding-heatmap?symbol=xmr&lookback=2d`)
    expect(res.status).toBe(200)
    const body = await jsonBody(res)
    expect(body.meta).toMatchObject({ symbol: 'XMRUSDT', base: 'XMR', exchange: 'binance', timeframe: '1h' })
    expect(body.meta.source).toBe('funding_1h')
    expect(body.meta.end - body.meta.start).toBe(2 * DAY)
    expect(body.meta.start % HOUR).toBe(0)
    expect(body.data).toHaveLength(48)
    expect(body.meta.rows).toBe(48)
    expect(body.next_cursor).toBeNull()
    body.data.forEach((cell: Record<string, unknown>, i: number) => {
      expectCell(cell, expectedCell(BN, body.meta.start + i * HOUR, HOUR))
    })
    const at = (ago: number) => body.data.find((c: { timestamp: number }) => c.timestamp === H0 - ago * HOUR)
    expect(at(11).rate).toBeNull()
    expect(at(11).rate_annualized).toBeNull()
    expect(at(ZERO_HOUR).rate).toBe(0)
    expect(at(ZERO_HOUR).rate_annualized).toBe(0)
    expect(body.gaps).toContainEqual({ start: H0 - 12 * HOUR, end: H0 - 9 * HOUR })
  })

  it('aggregates to 4h and to 1d (from the daily table) like a direct computation', async () => {
    for (const [interval, width, lookback, source] of [
      ['4h', 4 * HOUR, '3d', 'funding_1h'],
      ['1d', DAY, '4d', 'funding_1d']
    ] as const) {
      const body = await jsonBody(
        await get(`${PATH}/funding-heatmap?symbol=XMR&exchange=okx&interval=${interval}&lookback=${lookback}`)
      )
      expect(body.meta).toMatchObject({ exchange: 'okx', symbol: 'XMR-USDT-SWAP', timeframe: interval, source })
      expect(body.meta.start % width).toBe(0)
      expect(body.data.length).toBe((body.meta.end - body.meta.start) / width)
      body.data.forEach((cell: Record<string, unknown>, i: number) => {
        expectCell(cell, expectedCell(OKX, body.meta.start + i * width, width))
      })
      expect(body.data.some((c: { readings: number }) => c.readings > 1)).toBe(true)
    }
  })
  it('aligns SQL buckets with the grid for 12h, 1w and 1M: every reading lands in a cell', async () => {
    const posted = ROWS.filter((x) => x.exchange === 'binance').length
    for (const [interval, lookback] of [
      ['12h', '3d'],
      ['1w', '3w'],
      ['1M', '3M']
    ]) {
      const body = await jsonBody(
        await get(`${PATH}/funding-heatmap?symbol=XMR&interval=${interval}&lookback=${lookback}`)
      )
      const total = body.data.reduce((s: number, c: { readings: number }) => s + c.readings, 0)
      expect(total, interval).toBe(posted)
    }
  })
})

describe(`GET ${PATH}/funding-heatmap/comparative (seed ${SEED})`, () => {
  it('lines up every exchange listing the symbol per bucket, normalized by each funding interval', async () => {
    const body = await jsonBody(await get(`${PATH}/funding-heatmap/comparative?symbol=XMR&lookback=2d`))
    expect(body.meta).toMatchObject({ base: 'XMR', symbol: null, exchange: null, timeframe: '4h' })
    expect(body.meta.exchanges).toEqual(['binance', 'okx'])
    expect(body.meta.markets.map((m: { symbol: string }) => m.symbol)).toEqual(['XMRUSDT', 'XMR-USDT-SWAP'])
    expect(body.data).toHaveLength(12)
    for (const row of body.data) {
      const { timestamp: _b, ...bn } = expectedCell(BN, row.timestamp, 4 * HOUR)
      const { timestamp: _o, ...okx } = expectedCell(OKX, row.timestamp, 4 * HOUR)
      expectCell(row.exchanges.binance, bn)
      expectCell(row.exchanges.okx, okx)
      if (okx.rate !== null) expect(row.exchanges.okx.rate_8h).toBeCloseTo(okx.rate * 2, 15)
      if (bn.rate !== null && okx.rate !== null) {
        expect(row.spread_8h).toBeCloseTo(Math.abs(bn.rate - okx.rate * 2), 15)
      } else expect(row.spread_8h).toBeNull()
    }
    // before the posted data neither exchange has a reading: a gap of the envelope
    expect(body.gaps[0].start).toBe(body.meta.start)
  })

  it('keeps the requested order and takes a native symbol as its base asset', async () => {
    const body = await jsonBody(
      await get(
        `${PATH}/funding-heatmap/comparative?symbol=XMR-USDT-SWAP&exchanges=okx,binance&interval=1h&lookback=1d`
      )
    )
    expect(body.meta.exchanges).toEqual(['okx', 'binance'])
    expect(Object.keys(body.data[0].exchanges)).toEqual(['okx', 'binance'])
    expect(body.data).toHaveLength(24)
    const gap = body.meta.markets[1].gaps
    expect(gap).toContainEqual({ start: H0 - 12 * HOUR, end: H0 - 9 * HOUR })
  })
})

describe(`GET ${PATH}/funding-stats (seed ${SEED})`, () => {
  /** the hourly series computed here: the last binance reading of each hour */
  function directSeries(): { ts: number; rate: number }[] {
    const byHour = new Map<number, Row>()
    for (const x of ROWS.filter((x) => x.exchange === 'binance')) {
      const h = Math.floor(x.ts / HOUR) * HOUR
      const prev = byHour.get(h)
      if (!prev || x.ts > prev.ts) byHour.set(h, x)
    }
    return [...byHour.entries()].sort((a, b) => a[0] - b[0]).map(([ts, x]) => ({ ts, rate: x.funding_rate }))
  }

  it('matches funding stats against a direct computation', async () => {
    const body = await jsonBody(await get(`${PATH}/funding-stats?symbol=XMR&lookback=7d`))
    const s = directSeries()
    const xs = s.map((p) => p.rate)
    const n = xs.length
    const mean = xs.reduce((a, b) => a + b, 0) / n
    const sorted = [...xs].sort((a, b) => a - b)
    const median = n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2
    const std = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / n)
    const max = Math.max(...xs)
    const min = Math.min(...xs)
    const current = s.at(-1)!
    const rank = (100 * xs.filter((x) => x <= current.rate).length) / n

    expect(n).toBe(37) // 40 hours, 3 without readings
    const rec = body.data[0]
    expect(rec).toMatchObject({ symbol: 'XMRUSDT', base: 'XMR', exchange: 'binance', samples: n })
    expect(rec.mean).toBeCloseTo(mean, 15)
    expect(rec.median).toBeCloseTo(median, 15)
    expect(rec.std_dev).toBeCloseTo(std, 15)
    expect(rec.min).toBe(min)
    expect(rec.max).toBe(max)
    expect(rec.annualized_mean).toBeCloseTo(mean * 1095, 12)
    expect(rec.extremes.max).toEqual({ rate: max, timestamp: s.find((p) => p.rate === max)!.ts })
    expect(rec.extremes.min).toEqual({ rate: min, timestamp: s.find((p) => p.rate === min)!.ts })
    expect(rec.current).toMatchObject({ rate: current.rate, timestamp: current.ts, interval_hours: 8 })
    expect(rec.current.percentile_rank).toBeCloseTo(rank, 12)
    expect(body.meta).toMatchObject({ timeframe: '1h', source: 'funding_1h', rows: 1 })
    expect(body.meta.end - body.meta.start).toBe(7 * DAY)
    expect(body.gaps).toContainEqual({ start: H0 - 12 * HOUR, end: H0 - 9 * HOUR })
  })

  it('gives only the metrics asked for, and nulls for a window without readings', async () => {
    const some = (await jsonBody(await get(`${PATH}/funding-stats?symbol=XMRUSDT&metrics=median,max`))).data[0]
    expect(some.median).toBeTypeOf('number')
    expect(some.max).toBeTypeOf('number')
    expect(some).not.toHaveProperty('mean')
    expect(some).not.toHaveProperty('std_dev')
    expect(some).not.toHaveProperty('min')
    // the current hour has no reading yet
    const body = await jsonBody(await get(`${PATH}/funding-stats?symbol=XMR&lookback=1h`))
    expect(body.data[0]).toMatchObject({ samples: 0, mean: null, median: null, std_dev: null, min: null, max: null })
    expect(body.data[0]).toMatchObject({ annualized_mean: null, extremes: { max: null, min: null }, current: null })
    expect(body.gaps).toEqual([{ start: body.meta.start, end: body.meta.end }])
  })
})

describe('bad parameters answer 400 with a message a person understands', () => {
  const cases: [string, string, string][] = [
    [`${PATH}/funding-heatmap?symbol=XMR&interval=90m`, 'interval', 'must be a whole number of hours'],
    [`${PATH}/funding-heatmap?symbol=XMR&interval=soon`, 'interval', 'must be a whole number of hours'],
    [`${PATH}/funding-heatmap?symbol=XMR&lookback=forever`, 'lookback', 'must be a count and a unit'],
    [`${PATH}/funding-heatmap?symbol=XMR&lookback=25M`, 'lookback', 'at most 24 months'],
    [`${PATH}/funding-heatmap?symbol=XMR&interval=1d&lookback=6h`, 'lookback', 'at least one interval (1 day)'],
    [`${PATH}/funding-heatmap?symbol=XMR&exchange=kraken`, 'exchange', 'exchange must be one of binance, bybit, okx'],
    [`${PATH}/funding-heatmap?symbol=NOPE`, 'symbol', 'no history for NOPE'],
    [`${PATH}/funding-heatmap?symbol=XMR&exchange=bybit`, 'symbol', 'XMR has no market on bybit'],
    [`${PATH}/funding-heatmap?symbol=XMR&hours=3`, 'hours', "unknown parameter 'hours'"],
    [`${PATH}/funding-heatmap`, 'symbol', 'symbol is required'],
    [
      `${PATH}/funding-heatmap/comparative?symbol=XMR&exchanges=binance,bybit`,
      'exchanges',
      'XMR has no market on bybit'
    ],
    [
      `${PATH}/funding-heatmap/comparative?symbol=XMR&exchanges=binance,ftx`,
      'exchanges',
      'comma-separated list of binance, bybit, okx'
    ],
    [
      `${PATH}/funding-stats?symbol=XMR&metrics=mean,avg`,
      'metrics',
      'comma-separated list of mean, median, std_dev, min, max'
    ],
    [`${PATH}/funding-stats?symbol=XMR&lookback=0d`, 'lookback', 'must be a count and a unit']
  ]
  for (const [path, param, message] of cases) {
    it(`${path.slice(PATH.length)} -> ${param}`, async () => {
      const res = await get(path)
      expect(res.status).toBe(400)
      const { error } = await jsonBody(res)
      expect(error.param).toBe(param)
      expect(error.message).toContain(message)
    })
  }

  it('holds the free plan to 30 days and its symbols; needs a key', async () => {
    const deep = await get(`${PATH}/funding-stats?symbol=BTC&lookback=60d`, free)
    expect(deep.status).toBe(400)
    expect((await jsonBody(deep)).error.message).toContain('the free plan reaches 30 days back')
    const xmr = await get(`${PATH}/funding-heatmap?symbol=XMRUSDT`, free)
    expect(xmr.status).toBe(403)
    expect((await jsonBody(xmr)).error.message).toContain('XMR is not included in the free plan')
    expect((await get(`${PATH}/funding-stats?symbol=XMR`, '')).status).toBe(401)
  })
})

describe('OpenAPI', () => {
  it('describes the three funding endpoints', async () => {
    const doc = await jsonBody(await get('/v1/openapi.json', ''))
    for (const p of ['funding-heatmap', 'funding-heatmap/comparative', 'funding-stats']) {
      expect(doc.paths[`${PATH}/${p}`]?.get, p).toBeDefined()
    }
  })
})
