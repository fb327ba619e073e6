/**
 * `known_by` on the candle history (docs/history.md "Known by"): answers asked with a moment before a late
 * arrival (trades with old event times, loaded later) equal, byte for byte, the answers given before it
 * arrived; with a moment after it they include it; without `known_by` answers are the plain ones. Every
 * timeframe, on a real server and store; values are exact in binary so sums do not depend on order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody, startTestServer } from '../helpers/server.js'
import { createKey } from '../helpers/shared-server.js'
import { until } from '../helpers/until.js'

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''
const today = Math.floor(Date.now() / DAY) * DAY
/** closed days: 1m to 1d read this one */
const D = today - 2 * DAY
/** a day in an earlier week and month (1w and 1M buckets closed) */
const E = today - 40 * DAY

const trade = (ts: number, price: number, qty: number, id: string) => ({
  ts,
  exchange: 'binance',
  market: 'perp',
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  side: 'buy',
  price,
  qty,
  trade_id: id
})

/** Trades at minutes 0 and 30 of each hour, prices and sizes exact in binary. */
const hourTrades = (start: number, hours: readonly number[], tag: string) =>
  hours.flatMap((h) => [
    trade(start + h * HOUR, 100 + h, 0.5, `${tag}-${h}-a`),
    trade(start + h * HOUR + 30 * MIN, 101 + h, 0.25, `${tag}-${h}-b`)
  ])

async function lastIngest(): Promise<number> {
  const [r] = await srv.running.ctx.store.query<{ t: number }>(
    'SELECT toUnixTimestamp64Milli(max(ingest_ts)) AS t FROM trades'
  )
  return Number(r!.t)
}

const around = (from: number, to: number) => `symbol=BTC&start_time=${from}&end_time=${to}`
/** Every timeframe over the late hours, and resamples of a fine and a coarse source. */
const PATHS = [
  `/v1/historical/ohlcv?timeframe=1m&${around(D, D + 12 * HOUR)}`,
  `/v1/historical/ohlcv?timeframe=5m&${around(D, D + 12 * HOUR)}`,
  `/v1/historical/ohlcv?timeframe=15m&${around(D + 4 * HOUR + 15 * MIN, D + 12 * HOUR)}`,
  `/v1/historical/ohlcv?timeframe=1h&${around(D, D + DAY)}`,
  `/v1/historical/ohlcv?timeframe=4h&${around(D, D + DAY)}`,
  `/v1/historical/ohlcv?timeframe=1d&${around(E - 2 * DAY, D + DAY)}`,
  `/v1/historical/ohlcv?timeframe=1w&${around(E - 14 * DAY, D + DAY)}`,
  `/v1/historical/ohlcv?timeframe=1M&${around(E - 62 * DAY, D + DAY)}`,
  `/v1/historical/ohlcv/resample?symbol=BTC&source_timeframe=15m&target_timeframe=2h&lookback=3d`,
  `/v1/historical/ohlcv/resample?symbol=BTC&source_timeframe=1d&target_timeframe=3d&lookback=60d`
]

async function get(path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })
  return { status: res.status, text: await res.text() }
}

/** The answer's text without the `known_by` member its meta adds. */
const withoutKnownBy = (text: string, knownBy: number) =>
  text.replace(`,"known_by":"${new Date(knownBy).toISOString()}"`, '')

beforeAll(async () => {
  srv = await startTestServer()
  key = await createKey(srv.base, 'pro')
}, 60_000)
afterAll(async () => {
  await srv?.stop()
})

describe('known_by on the candle history', () => {
  it('answers before a late arrival as they were, after it with it, and plain without known_by', async () => {
    await ingestRecords(srv.base, 'trade', [
      ...hourTrades(D, [3, 4, 5, 6, 7], 'live'),
      ...hourTrades(E, [1, 2, 3], 'live-e')
    ])
    const before = await lastIngest()
    const recorded = new Map<string, string>()
    for (const p of PATHS) {
      const r = await get(p)
      expect(r.status, `${p}: ${r.text.slice(0, 300)}`).toBe(200)
      expect(JSON.parse(r.text).data.length, p).toBeGreaterThan(0)
      recorded.set(p, r.text)
    }
    await until('the clock passes the first load', () => Date.now() > before)
    // late: an hour that had trades gets more, an empty hour gets some, and the early day too
    await ingestRecords(srv.base, 'trade', [
      trade(D + 4 * HOUR + 10 * MIN, 90, 2, 'late-4'),
      trade(D + 4 * HOUR + 50 * MIN, 130, 1, 'late-4b'),
      ...hourTrades(D, [9], 'late'),
      ...hourTrades(E, [5], 'late-e')
    ])
    const after = await lastIngest()

    for (const p of PATHS) {
      const known = await get(`${p}&known_by=${before}`)
      expect(known.status, known.text.slice(0, 300)).toBe(200)
      expect(JSON.parse(known.text).meta.known_by).toBe(new Date(before).toISOString())
      expect(withoutKnownBy(known.text, before), p).toBe(recorded.get(p))

      const plain = await get(p)
      expect(plain.text, p).not.toBe(recorded.get(p))
      const now = await get(`${p}&known_by=${new Date(after).toISOString()}`)
      expect(withoutKnownBy(now.text, after), p).toBe(plain.text)
    }
    // the late trades are in the 1m answer known by after them, with their own values
    const m1 = JSON.parse((await get(`${PATHS[0]}&known_by=${after}`)).text) as {
      data: { timestamp: number; open: number; volume_base: number }[]
    }
    expect(m1.data.find((c) => c.timestamp === D + 4 * HOUR + 10 * MIN)).toMatchObject({ open: 90, volume_base: 2 })
  })

  it('refuses a known_by in the future or malformed, naming the forms', async () => {
    const future = await get(`${PATHS[3]}&known_by=${Date.now() + DAY}`)
    expect(future.status).toBe(400)
    expect(JSON.parse(future.text).error).toMatchObject({ code: 'invalid_parameter', param: 'known_by' })
    expect(JSON.parse(future.text).error.message).toMatch(/future/)
    const bad = await get(`${PATHS[3]}&known_by=yesterday`)
    expect(bad.status).toBe(400)
    expect((await jsonBody(new Response(bad.text))).error.param).toBe('known_by')
  })
})
