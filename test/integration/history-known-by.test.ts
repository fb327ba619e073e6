/**
 * `known_by` on the candle and funding history (docs/history.md "Known by"): answers asked with a moment before a late
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

async function lastIngestOf(table: 'trades' | 'funding' | 'whale_transfers'): Promise<number> {
  const [r] = await srv.running.ctx.store.query<{ t: number }>(
    `SELECT toUnixTimestamp64Milli(max(ingest_ts)) AS t FROM ${table}`
  )
  return Number(r!.t)
}
const lastIngest = () => lastIngestOf('trades')

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

const funding = (ts: number, k: number) => ({
  ts,
  exchange: 'binance',
  symbol: 'BTCUSDT',
  base: 'BTC',
  // multiples of 2^-13: sums and means exact whatever their order
  funding_rate: k / 8192,
  interval_hours: 8
})

/** Readings at minutes 0 and 40 of each hour. */
const hourFunding = (start: number, hours: readonly number[], k: number) =>
  hours.flatMap((h) => [funding(start + h * HOUR, k + h), funding(start + h * HOUR + 40 * MIN, k - h)])

const FUNDING = '/v1/historical/derivatives'
/** Windows of whole days (a window moves only at midnight UTC), the statistics' data compared alone. */
const FUNDING_PATHS = [
  `${FUNDING}/funding-heatmap?symbol=BTC&interval=1d&lookback=7d`,
  `${FUNDING}/funding-heatmap?symbol=BTC&interval=1d&lookback=7d&exchange=binance`,
  `${FUNDING}/funding-heatmap/comparative?symbol=BTC&interval=1d&lookback=7d`
]
const STATS = `${FUNDING}/funding-stats?symbol=BTC&lookback=7d`

describe('known_by on the funding history', () => {
  it('answers before late readings as they were, after them with them', async () => {
    await ingestRecords(srv.base, 'funding', hourFunding(D, [3, 4, 5], 2))
    const before = await lastIngestOf('funding')
    const recorded = new Map<string, string>()
    for (const p of FUNDING_PATHS) {
      const r = await get(p)
      expect(r.status, `${p}: ${r.text.slice(0, 300)}`).toBe(200)
      recorded.set(p, r.text)
    }
    const stats = JSON.parse((await get(STATS)).text).data
    expect(stats[0].mean).not.toBeNull()
    await until('the clock passes the first load', () => Date.now() > before)
    await ingestRecords(srv.base, 'funding', [funding(D + 4 * HOUR + 20 * MIN, 40), ...hourFunding(D, [9], 30)])
    const after = await lastIngestOf('funding')
    for (const p of FUNDING_PATHS) {
      const known = await get(`${p}&known_by=${before}`)
      expect(known.status, known.text.slice(0, 300)).toBe(200)
      expect(withoutKnownBy(known.text, before), p).toBe(recorded.get(p))
      const plain = await get(p)
      expect(plain.text, p).not.toBe(recorded.get(p))
      expect(withoutKnownBy((await get(`${p}&known_by=${after}`)).text, after), p).toBe(plain.text)
    }
    expect(JSON.parse((await get(`${STATS}&known_by=${before}`)).text).data).toEqual(stats)
    expect(JSON.parse((await get(STATS)).text).data).not.toEqual(stats)
    expect(JSON.parse((await get(`${STATS}&known_by=${after}`)).text).data).toEqual(
      JSON.parse((await get(STATS)).text).data
    )
  })
})

const whale = (ts: number, id: string, type: 'transfer_in' | 'transfer_out', usd: number) => ({
  ts,
  chain: 'ethereum',
  tx_hash: `0x${id.padStart(64, '0')}`,
  log_index: 0,
  block_number: 1,
  address: '0x00000000000000000000000000000000000000aa',
  counterparty: '0x00000000000000000000000000000000000000bb',
  event_type: type,
  token: 'WETH',
  amount: 1,
  usd_value: usd
})

const WHALES = '/v1/historical/whales?asset=ETH&interval=1d&lookback=7d'

describe('known_by on the whale history', () => {
  it('answers before late transfers as they were, after them with them', async () => {
    await ingestRecords(srv.base, 'whale_transfer', [
      whale(D + 3 * HOUR, '1', 'transfer_in', 1000.5),
      whale(D + 4 * HOUR, '2', 'transfer_out', 250.25)
    ])
    const before = await lastIngestOf('whale_transfers')
    const recorded = await get(WHALES)
    expect(recorded.status, recorded.text.slice(0, 300)).toBe(200)
    await until('the clock passes the first load', () => Date.now() > before)
    await ingestRecords(srv.base, 'whale_transfer', [
      whale(D + 4 * HOUR + 5 * MIN, '3', 'transfer_in', 4096),
      whale(D + 9 * HOUR, '4', 'transfer_in', 8)
    ])
    const after = await lastIngestOf('whale_transfers')
    const known = await get(`${WHALES}&known_by=${before}`)
    expect(withoutKnownBy(known.text, before)).toBe(recorded.text)
    const plain = await get(WHALES)
    expect(plain.text).not.toBe(recorded.text)
    expect(withoutKnownBy((await get(`${WHALES}&known_by=${after}`)).text, after)).toBe(plain.text)
    const day = (JSON.parse(plain.text).data as { timestamp: number; value: number }[]).find((r) => r.timestamp === D)
    expect(day?.value).toBe(1000.5 - 250.25 + 4096 + 8)
  })
})
