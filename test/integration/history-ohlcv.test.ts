import fc from 'fast-check'
import { describe, it, expect, beforeAll } from 'vitest'
import { jsonBody, ingestRecords } from '../helpers/server.js'
import { createKey, sharedServer } from '../helpers/shared-server.js'

const srv = sharedServer()
let enterprise = ''
let free = ''
let trader = ''
const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

interface Trade {
  ts: number
  price: number
  qty: number
}

interface C {
  timestamp: number
  open: number
  high: number
  low: number
  close: number
  volume_base: number
  volume_quote: number
  trades: number
}

/** Candles recomputed from trades: bucket = floor(ts / step) * step (epoch-aligned widths). */
function candlesFrom(trades: readonly Trade[], stepMs: number, from: number, to: number): C[] {
  const by = new Map<number, Trade[]>()
  for (const t of trades) {
    const b = Math.floor(t.ts / stepMs) * stepMs
    if (b < from || b >= to) continue
    if (!by.has(b)) by.set(b, [])
    by.get(b)!.push(t)
  }
  return [...by.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, ts]) => {
      const s = [...ts].sort((x, y) => x.ts - y.ts)
      return {
        timestamp: b,
        open: s[0]!.price,
        high: Math.max(...s.map((t) => t.price)),
        low: Math.min(...s.map((t) => t.price)),
        close: s[s.length - 1]!.price,
        volume_base: s.reduce((a, t) => a + t.qty, 0),
        volume_quote: s.reduce((a, t) => a + t.price * t.qty, 0),
        trades: s.length
      }
    })
}

function expectSameCandles(got: C[], want: C[]): void {
  expect(got.map((c) => c.timestamp)).toEqual(want.map((c) => c.timestamp))
  got.forEach((g, i) => {
    const w = want[i]!
    expect([g.open, g.high, g.low, g.close, g.trades]).toEqual([w.open, w.high, w.low, w.close, w.trades])
    expect(g.volume_base).toBeCloseTo(w.volume_base, 6)
    expect(g.volume_quote).toBeCloseTo(w.volume_quote, 4)
  })
}

const tradeRecord = (base: string, t: Trade, i: number) => ({
  exchange: 'binance',
  symbol: `${base}USDT`,
  base,
  market: 'perp',
  quote: 'USDT',
  side: i % 2 ? 'buy' : 'sell',
  ts: t.ts,
  price: t.price,
  qty: t.qty,
  trade_id: `${base}-${i}`
})

const get = (path: string, key = enterprise) => fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })

beforeAll(async () => {
  enterprise = await createKey(srv.base, 'enterprise', 'e')
  free = await createKey(srv.base, 'free', 'f')
  trader = await createKey(srv.base, 'trader', 't')
  // a free-plan symbol for the plan-depth cases
  await ingestRecords(srv.base, 'trade', [tradeRecord('BTC', { ts: Date.now() - 2 * DAY, price: 90_000, qty: 1 }, 0)])
})

/** Random trades in the last `spanMs` before the current hour (so every candle is closed), unique times. */
const tradesArb = (spanMs: number) => {
  const end = Math.floor(Date.now() / DAY) * DAY // today 00:00: buckets up to 1d are closed
  return fc
    .uniqueArray(fc.integer({ min: end - spanMs, max: end - 1 }), { minLength: 1, maxLength: 80 })
    .chain((times) =>
      fc.tuple(
        ...times.map((ts) =>
          fc.record({
            ts: fc.constant(ts),
            price: fc.integer({ min: 100, max: 100_000 }).map((p) => p / 100),
            qty: fc.integer({ min: 1, max: 10_000 }).map((q) => q / 1000)
          })
        )
      )
    )
}

let run = 0
describe('candles equal candles recomputed from raw trades (property)', () => {
  it('ohlcv 1m/5m/1h/1d and resample 1m->3m, 1h->12h, 5m->30m', async () => {
    await fc.assert(
      fc.asyncProperty(tradesArb(2 * DAY), async (trades) => {
        const base = `PQ${run++}`
        await ingestRecords(
          srv.base,
          'trade',
          trades.map((t, i) => tradeRecord(base, t, i))
        )
        const start = Math.floor(Math.min(...trades.map((t) => t.ts)) / DAY) * DAY
        const end = Math.floor(Date.now() / DAY) * DAY
        for (const [tf, step] of [
          ['1m', MIN],
          ['5m', 5 * MIN],
          ['1h', HOUR],
          ['1d', DAY]
        ] as const) {
          const body = await jsonBody(
            await get(
              `/v1/historical/ohlcv?symbol=${base}&timeframe=${tf}&start_time=${start}&end_time=${end}&limit=10000`
            )
          )
          expectSameCandles(body.data, candlesFrom(trades, step, start, end))
          expect(body.meta).toMatchObject({ symbol: `${base}USDT`, base, exchange: 'binance', timeframe: tf })
        }
        for (const [src, target, step] of [
          ['1m', '3m', 3 * MIN],
          ['1h', '12h', 12 * HOUR],
          ['5m', '30m', 30 * MIN]
        ] as const) {
          const body = await jsonBody(
            await get(
              `/v1/historical/ohlcv/resample?symbol=${base}&source_timeframe=${src}&target_timeframe=${target}&lookback=3d`
            )
          )
          expect(body.meta).toMatchObject({ timeframe: target, source_timeframe: src })
          expectSameCandles(body.data, candlesFrom(trades, step, body.meta.start, body.meta.end))
          expect(body.data.length).toBeGreaterThan(0)
        }
      }),
      { numRuns: 4 }
    )
  })
})

describe('cursor walk', () => {
  it('returns every candle of the range exactly once, in order, with gaps listed', async () => {
    const end = Math.floor(Date.now() / HOUR) * HOUR - HOUR
    const start = end - 3 * HOUR
    // trades in 100 of the 180 minutes, in a pattern with holes
    const trades: Trade[] = []
    for (let m = 0; m < 180; m++) if (m % 9 < 5) trades.push({ ts: start + m * MIN + 1234, price: 50 + m, qty: 1 })
    await ingestRecords(
      srv.base,
      'trade',
      trades.map((t, i) => tradeRecord('CWK', t, i))
    )
    const seen: C[] = []
    const gaps: { start: number; end: number }[] = []
    let cursor: number | null = null
    let pages = 0
    do {
      const body = await jsonBody(
        await get(
          `/v1/historical/ohlcv?symbol=CWK&timeframe=1m&start_time=${start}&end_time=${end}&limit=7${cursor === null ? '' : `&cursor=${cursor}`}`
        )
      )
      expect(body.data.length).toBeLessThanOrEqual(7)
      seen.push(...body.data)
      gaps.push(...body.gaps)
      if (body.next_cursor !== null) expect(body.next_cursor).toBe(body.meta.end)
      cursor = body.next_cursor
      pages++
    } while (cursor !== null && pages < 100)
    expect(cursor).toBeNull()
    expectSameCandles(seen, candlesFrom(trades, MIN, start, end))
    // every missing minute is inside exactly one listed gap; no present minute is
    const missing = new Set<number>()
    for (let m = 0; m < 180; m++) if (m % 9 >= 5) missing.add(start + m * MIN)
    const inGap = (t: number) => gaps.filter((g) => t >= g.start && t < g.end).length
    for (let m = 0; m < 180; m++) {
      const t = start + m * MIN
      expect(inGap(t)).toBe(missing.has(t) ? 1 : 0)
    }
  })

  it('rejects a cursor outside the range', async () => {
    const end = Math.floor(Date.now() / HOUR) * HOUR
    const res = await get(
      `/v1/historical/ohlcv?symbol=CWK&timeframe=1m&start_time=${end - HOUR}&end_time=${end}&cursor=${end + HOUR}`
    )
    expect(res.status).toBe(400)
    expect((await jsonBody(res)).error.param).toBe('cursor')
  })
})

describe('limits', () => {
  const cases: [string, string, string][] = [
    ['1m', '30d', '31d'],
    ['5m', '90d', '91d'],
    ['15m', '180d', '181d'],
    ['1h', '365d', '366d'],
    ['4h', '24M', '25M'],
    ['1d', '24M', '25M'],
    ['1w', '24M', '25M'],
    ['1M', '24M', '25M']
  ]
  it.each(cases)('timeframe %s allows %s and refuses %s, naming the limit', async (tf, ok, over) => {
    expect((await get(`/v1/historical/ohlcv?symbol=CWK&timeframe=${tf}&lookback=${ok}`)).status).toBe(200)
    const res = await get(`/v1/historical/ohlcv?symbol=CWK&timeframe=${tf}&lookback=${over}`)
    expect(res.status).toBe(400)
    const err = (await jsonBody(res)).error
    expect(err.param).toBe('lookback')
    expect(err.message).toContain(`timeframe ${tf} allows at most`)
  })

  it('plan depth: free 30 days, trader 365 days, whatever the timeframe allows', async () => {
    expect((await get('/v1/historical/ohlcv?symbol=BTC&timeframe=1h&lookback=29d', free)).status).toBe(200)
    const res = await get('/v1/historical/ohlcv?symbol=BTC&timeframe=1h&lookback=31d', free)
    expect(res.status).toBe(400)
    expect((await jsonBody(res)).error.message).toContain('free plan reaches 30 days back')
    const old = Date.now() - 40 * DAY
    const res2 = await get(`/v1/historical/ohlcv?symbol=BTC&timeframe=1d&start_time=${old}&end_time=${old + DAY}`, free)
    expect(res2.status).toBe(400)
    expect((await jsonBody(res2)).error.param).toBe('start_time')
    const res3 = await get('/v1/historical/ohlcv?symbol=CWK&timeframe=1d&lookback=400d', trader)
    expect((await jsonBody(res3)).error.message).toContain('trader plan reaches 365 days back')
  })

  it('answers 400 for bad parameters with a message', async () => {
    const bad: [string, string][] = [
      ['symbol=CWK&timeframe=2m&lookback=1d', 'timeframe'],
      ['symbol=CWK&timeframe=1m&lookback=10x', 'lookback'],
      ['symbol=CWK&timeframe=1m&lookback=1d&limit=10001', 'limit'],
      ['symbol=CWK&timeframe=1m&lookback=1d&limit=0', 'limit'],
      ['symbol=CWK&timeframe=1m&lookback=1d&start_time=1', 'lookback'],
      ['symbol=CWK&timeframe=1m&start_time=2000&end_time=1000', 'start_time'],
      ['symbol=NOPE&timeframe=1m&lookback=1d', 'symbol'],
      ['symbol=CWK&exchange=kraken&timeframe=1m&lookback=1d', 'exchange'],
      ['symbol=CWK&exchange=okx&timeframe=1m&lookback=1d', 'symbol']
    ]
    for (const [query, param] of bad) {
      const res = await get(`/v1/historical/ohlcv?${query}`)
      expect(res.status, query).toBe(400)
      const err = (await jsonBody(res)).error
      expect(err.param, query).toBe(param)
      expect(err.message.length).toBeGreaterThan(10)
    }
  })

  it('resample refuses targets that are not whole multiples', async () => {
    for (const [src, target] of [
      ['1h', '90m'],
      ['5m', '12m'],
      ['1w', '1M'],
      ['1d', '36h'],
      ['1h', '1y']
    ]) {
      const res = await get(
        `/v1/historical/ohlcv/resample?symbol=CWK&source_timeframe=${src}&target_timeframe=${target}`
      )
      expect(res.status, `${src}->${target}`).toBe(400)
      expect((await jsonBody(res)).error.param).toBe('target_timeframe')
    }
    for (const [src, target] of [
      ['1m', '7m'],
      ['1d', '1w'],
      ['1h', '1M'],
      ['1M', '3M']
    ]) {
      expect(
        (await get(`/v1/historical/ohlcv/resample?symbol=CWK&source_timeframe=${src}&target_timeframe=${target}`))
          .status
      ).toBe(200)
    }
  })
})

describe('ohlcv/multi', () => {
  it('returns the latest closed candle per timeframe at a timestamp', async () => {
    // yesterday 10:00 UTC, whatever the time of day: every trade and `at` fall on that day, and the day
    // before it (the 1d candle closed last at `at`) has none (an hour fixed relative to now crossed midnight
    // between 04:00 and 05:00 UTC, and the 1d candle then had data)
    const hour = Math.floor(Date.now() / DAY) * DAY - DAY + 10 * HOUR
    const trades: Trade[] = [
      { ts: hour - 2 * HOUR + 10, price: 10, qty: 1 },
      { ts: hour + 5 * MIN + 10, price: 11, qty: 1 },
      { ts: hour + 20 * MIN + 10, price: 12, qty: 2 },
      { ts: hour + 62 * MIN, price: 13, qty: 1 }
    ]
    await ingestRecords(
      srv.base,
      'trade',
      trades.map((t, i) => tradeRecord('MLT', t, i))
    )
    // at hour + 61 min: the 1m candle closed last with data is 20 min; 5m -> the 20-25 bucket; 1h -> the hour
    const at = hour + 61 * MIN + 30_000
    const body = await jsonBody(
      await get(`/v1/historical/ohlcv/multi?symbol=MLT&timeframes=1h,1m,5m,1d&timestamp=${at}`)
    )
    const by = Object.fromEntries(body.data.map((c: C & { timeframe: string }) => [c.timeframe, c]))
    expect(body.data.map((c: { timeframe: string }) => c.timeframe)).toEqual(['1m', '5m', '1h'])
    expect(by['1m']).toMatchObject({ timestamp: hour + 20 * MIN, close: 12, trades: 1 })
    expect(by['5m']).toMatchObject({ timestamp: hour + 20 * MIN, close: 12 })
    expect(by['1h']).toMatchObject({
      timestamp: hour,
      open: 11,
      close: 12,
      high: 12,
      low: 11,
      trades: 2,
      volume_base: 3
    })
    // 1d: the day before `at`'s day holds no trade
    expect(body.meta.missing).toEqual(['1d'])
  })
})

describe('defaults', () => {
  it('a request without a range stays within the timeframe and plan limits', async () => {
    for (const tf of ['1m', '1h', '1d', '1M']) {
      const res = await get(`/v1/historical/ohlcv?symbol=BTC&timeframe=${tf}`, free)
      expect(res.status, tf).toBe(200)
      const body = await jsonBody(res)
      expect(body.meta.start).toBeGreaterThanOrEqual(Date.now() - 30 * DAY - 60_000)
      if (tf === '1m') {
        // the default of 1000 buckets, inside the free plan's 30 days
        expect(body.meta.end - body.meta.start).toBeGreaterThanOrEqual(999 * 60_000)
        expect(body.meta.end - body.meta.start).toBeLessThanOrEqual(1000 * 60_000)
      } else {
        // 1000 buckets reach past 30 days: shrunk to the plan's depth, to within one bucket
        const step = tf === '1h' ? 3_600_000 : tf === '1d' ? DAY : 31 * DAY
        expect(body.meta.start - (Date.now() - 30 * DAY)).toBeLessThanOrEqual(step)
      }
    }
    const res = await get('/v1/historical/ohlcv/resample?symbol=CWK&source_timeframe=1M&target_timeframe=3M')
    expect(res.status).toBe(200)
  })
})

describe('plan symbols', () => {
  it('a free key reaches only its plan symbols, by base or native name', async () => {
    const res = await get('/v1/historical/ohlcv?symbol=CWKUSDT&timeframe=1h&lookback=1d', free)
    expect(res.status).toBe(403)
    expect((await jsonBody(res)).error.message).toContain('not included in the free plan')
    expect((await get('/v1/historical/ohlcv/multi?symbol=CWK', free)).status).toBe(403)
  })
})
