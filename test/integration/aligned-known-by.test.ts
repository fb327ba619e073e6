/**
 * `known_by` on the aligned series (/v1/backtest/data, /v1/historical/correlated-data) and the candle export
 * (docs/history.md "Known by"): answers asked with a moment before a late arrival (trades, funding, OI,
 * liquidations and whale transfers with old event times, loaded later) equal, byte for byte, the answers
 * given before it arrived; with a moment after it they equal the plain answers, which include it. Hourly
 * grids (aggregates with late hours recomputed), sub-hour grids (raw reads) and coarse candle tables (4h,
 * 1d: buckets holding a late hour rebuilt), on a real server and store. Values are exact in binary so sums
 * do not depend on order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, startTestServer } from '../helpers/server.js'
import { createKey } from '../helpers/shared-server.js'
import { until } from '../helpers/until.js'
import { whaleRow } from '../helpers/whale-row.js'

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''
const today = Math.floor(Date.now() / DAY) * DAY
/** a closed day: every grid up to 1d reads it whole */
const D = today - 2 * DAY
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const market = { exchange: 'binance', symbol: 'AKBUSDT', base: 'AKB' }
const trade = (ts: number, price: number, qty: number, id: string) => ({
  ...market,
  ts,
  market: 'perp',
  quote: 'USDT',
  side: 'buy',
  price,
  qty,
  trade_id: id
})
/** Trades at minutes 0 and 30 of each hour. */
const hourTrades = (hours: readonly number[], tag: string) =>
  hours.flatMap((h) => [
    trade(D + h * HOUR, 100 + h, 0.5, `${tag}-${h}-a`),
    trade(D + h * HOUR + 30 * MIN, 101 + h, 0.25, `${tag}-${h}-b`)
  ])
const funding = (ts: number, k: number) => ({ ...market, ts, funding_rate: k / 8192, interval_hours: 8 })
const oi = (ts: number, k: number) => ({ ...market, ts, oi_base: k, oi_usd: k * 128 })
const liq = (ts: number, side: 'buy' | 'sell', qty: number) => ({ ...market, ts, side, price: 64, qty })
const whale = (ts: number, id: string, type: 'transfer_in' | 'transfer_out', usd: number) =>
  whaleRow({ ts, token: 'AKB', event_type: type, usd_value: usd, tx_hash: `0xakb${id}` })

/** Everything a table holds before the late arrival: hours 3 to 5 of day D. */
async function loadLive(): Promise<void> {
  // three earlier days with a close and a net flow each (the correlation has samples)
  await ingestRecords(srv.base, 'trade', [
    trade(D - 3 * DAY + 3 * HOUR, 100, 1, 'prev-3'),
    trade(D - 2 * DAY + 3 * HOUR, 110, 1, 'prev-2'),
    trade(D - DAY + 3 * HOUR, 99, 1, 'prev-1')
  ])
  await ingestRecords(srv.base, 'whale_transfer', [
    whale(D - 3 * DAY + 3 * HOUR, 'p3', 'transfer_in', 100),
    whale(D - 2 * DAY + 3 * HOUR, 'p2', 'transfer_out', 300),
    whale(D - DAY + 3 * HOUR, 'p1', 'transfer_in', 50)
  ])
  await ingestRecords(srv.base, 'trade', hourTrades([3, 4, 5], 'live'))
  // hour 7 ends at a settlement (8-hour interval): the freqtrade layout writes its rate
  await ingestRecords(srv.base, 'funding', [
    funding(D + 3 * HOUR, 2),
    funding(D + 4 * HOUR + 10 * MIN, 3),
    funding(D + 7 * HOUR + 10 * MIN, 5)
  ])
  await ingestRecords(srv.base, 'open_interest', [oi(D + 3 * HOUR + 5 * MIN, 10), oi(D + 4 * HOUR + 5 * MIN, 12)])
  await ingestRecords(srv.base, 'liquidation', [liq(D + 3 * HOUR, 'sell', 2), liq(D + 4 * HOUR + MIN, 'buy', 1)])
  await ingestRecords(srv.base, 'whale_transfer', [
    whale(D + 3 * HOUR, '1', 'transfer_in', 1024),
    whale(D + 4 * HOUR + 20 * MIN, '2', 'transfer_out', 256)
  ])
}

/** The late arrival: more in hour 4 (already known) and hour 9 (empty until then), old event times. */
async function loadLate(): Promise<void> {
  await ingestRecords(srv.base, 'trade', [trade(D + 4 * HOUR + 10 * MIN, 90, 2, 'late-4'), ...hourTrades([9], 'late')])
  await ingestRecords(srv.base, 'funding', [
    funding(D + 4 * HOUR + 50 * MIN, 40),
    funding(D + 7 * HOUR + 30 * MIN, 50),
    funding(D + 9 * HOUR, 30)
  ])
  await ingestRecords(srv.base, 'open_interest', [oi(D + 4 * HOUR + 55 * MIN, 20), oi(D + 9 * HOUR, 30)])
  await ingestRecords(srv.base, 'liquidation', [liq(D + 4 * HOUR + 40 * MIN, 'sell', 8), liq(D + 9 * HOUR, 'buy', 4)])
  await ingestRecords(srv.base, 'whale_transfer', [
    whale(D + 4 * HOUR + 45 * MIN, '3', 'transfer_in', 4096),
    whale(D + 9 * HOUR, '4', 'transfer_out', 8)
  ])
}

/** The latest receive time over the tables the late arrival touches (epoch ms). */
async function lastIngest(): Promise<number> {
  const tables = ['trades', 'funding', 'open_interest', 'liquidations', 'whale_transfers']
  const [r] = await srv.running.ctx.store.query<{ t: number }>(
    `SELECT max(t) AS t FROM (${tables.map((t) => `SELECT toUnixTimestamp64Milli(max(ingest_ts)) AS t FROM ${t}`).join(' UNION ALL ')})`
  )
  return Number(r!.t)
}

const ALL = 'ohlcv,funding_rate,oi,whale_flow,liquidations'
const CORR = 'ohlcv,whale_accumulation,funding_rates,oi,liquidations'
const dates = (from: number, to: number) => `start=${day(from)}&end=${day(to)}`
const corrDates = `start_time=${day(D)}&end_time=${day(D)}`
const PATHS = [
  `/v1/backtest/data?symbols=AKB&timeframe=1h&${dates(D, D)}&fields=${ALL}`,
  `/v1/backtest/data?symbols=AKB&timeframe=5m&${dates(D, D)}&fields=${ALL}`,
  `/v1/backtest/data?symbols=AKB&timeframe=4h&${dates(D, D)}&fields=${ALL}`,
  `/v1/backtest/data?symbols=AKB&timeframe=1d&${dates(D - 3 * DAY, D)}&fields=${ALL}`,
  `/v1/historical/correlated-data?asset=AKB&interval=1h&${corrDates}&include=${CORR}`,
  `/v1/historical/correlated-data?asset=AKB&interval=30m&${corrDates}&include=${CORR}`,
  `/v1/historical/correlated-data?asset=AKB&interval=1d&${corrDates}&include=${CORR}`,
  `/v1/historical/ohlcv/multi?symbol=AKB&timeframes=1m,1h,4h&timestamp=${D + 10 * HOUR}`,
  `/v1/historical/ohlcv/multi?symbol=AKB&timeframes=1d&timestamp=${D + DAY + HOUR}`,
  // whole-day grids: the grid moves only at midnight UTC
  `/v1/historical/snapshots?symbol=AKB&interval=1d&lookback=7d`,
  `/v1/historical/snapshots?symbol=AKBUSDT&interval=1d&lookback=7d&metrics=price,volume,oi,funding_rate`,
  `/v1/historical/whales/price-correlation?asset=AKB&interval=1d&lookback=7d`
]
/** The candle export in a text format (read back as rows) and a binary one (compared as bytes). */
const EXPORTS = [
  `/v1/backtest/export?symbols=AKB&timeframe=1h&start_time=${D}&end_time=${D + DAY}&format=csv`,
  `/v1/backtest/export?symbols=AKB&timeframe=4h&start_time=${D}&end_time=${D + DAY}&format=json`,
  `/v1/backtest/export?symbols=AKB&timeframe=15m&start_time=${D}&end_time=${D + DAY}&format=parquet`
]
/** The freqtrade layout: a tar whose entries carry the request time, so compared by entry contents. */
const FREQTRADE = `/v1/backtest/export?symbols=AKB&timeframe=1h&start_time=${D}&end_time=${D + DAY}&layout=freqtrade&exchange=binance`

/** The regular files of a ustar archive: name -> content as hex. */
function tarFiles(tar: Buffer): Map<string, string> {
  const files = new Map<string, string>()
  for (let at = 0; at + 512 <= tar.length;) {
    const h = tar.subarray(at, at + 512)
    if (h.every((b) => b === 0)) break
    const name = h.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '')
    const size = parseInt(h.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim(), 8)
    if (h[156] !== 0x35) files.set(name, tar.subarray(at + 512, at + 512 + size).toString('hex'))
    at += 512 + Math.ceil(size / 512) * 512
  }
  return files
}

async function get(path: string): Promise<{ status: number; text: string; bytes: Buffer }> {
  const res = await fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })
  const bytes = Buffer.from(await res.arrayBuffer())
  return { status: res.status, text: bytes.toString('utf8'), bytes }
}

/** The answer's text without the `known_by` member its meta adds. */
const withoutKnownBy = (text: string, knownBy: number) =>
  text.replace(`,"known_by":"${new Date(knownBy).toISOString()}"`, '')

/** CSV rows as objects keyed by the header. */
function csvRows(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split('\n')
  const cols = head!.split(',').map((c) => c.replace(/"/g, ''))
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v.replace(/"/g, '')])))
}

beforeAll(async () => {
  srv = await startTestServer()
  key = await createKey(srv.base, 'enterprise', 'e')
}, 60_000)
afterAll(async () => {
  await srv?.stop()
})

describe('known_by on the aligned series and the export', () => {
  it('answers before a late arrival as they were, after it with it', async () => {
    await loadLive()
    const before = await lastIngest()
    const recorded = new Map<string, { text: string; bytes: Buffer }>()
    for (const p of [...PATHS, ...EXPORTS, FREQTRADE]) {
      const r = await get(p)
      expect(r.status, `${p}: ${r.text.slice(0, 300)}`).toBe(200)
      recorded.set(p, r)
    }
    await until('the clock passes the first load', () => Date.now() > before)
    await loadLate()
    const after = await lastIngest()

    for (const p of PATHS) {
      const known = await get(`${p}&known_by=${before}`)
      expect(known.status, known.text.slice(0, 300)).toBe(200)
      expect(JSON.parse(known.text).meta.known_by).toBe(new Date(before).toISOString())
      expect(withoutKnownBy(known.text, before), p).toBe(recorded.get(p)!.text)
      const plain = await get(p)
      expect(plain.text, p).not.toBe(recorded.get(p)!.text)
      const now = await get(`${p}&known_by=${new Date(after).toISOString()}`)
      expect(withoutKnownBy(now.text, after), p).toBe(plain.text)
    }
    for (const p of EXPORTS) {
      const known = await get(`${p}&known_by=${before}`)
      expect(known.status, known.text.slice(0, 300)).toBe(200)
      expect(known.bytes.equals(recorded.get(p)!.bytes), p).toBe(true)
      const plain = await get(p)
      expect(plain.bytes.equals(recorded.get(p)!.bytes), p).toBe(false)
      expect((await get(`${p}&known_by=${after}`)).bytes.equals(plain.bytes), p).toBe(true)
    }

    const ftBefore = tarFiles((await get(`${FREQTRADE}&known_by=${before}`)).bytes)
    expect([...ftBefore.keys()].some((n) => n.endsWith('-1h-funding_rate.feather'))).toBe(true)
    expect(ftBefore).toEqual(tarFiles(recorded.get(FREQTRADE)!.bytes))
    const ftPlain = tarFiles((await get(FREQTRADE)).bytes)
    expect(ftPlain).not.toEqual(ftBefore)
    expect(tarFiles((await get(`${FREQTRADE}&known_by=${after}`)).bytes)).toEqual(ftPlain)

    // read back: the CSV known by `before` has hours 3 to 5 as loaded; the plain one the late trades too
    const csvBefore = csvRows((await get(`${EXPORTS[0]}&known_by=${before}`)).text)
    expect(csvBefore.map((r) => Number(r['timestamp']))).toEqual([3, 4, 5].map((h) => D + h * HOUR))
    expect(csvBefore[1]).toMatchObject({ open: '104', low: '104', volume_base: '0.75', trades: '2' })
    const csvPlain = csvRows((await get(EXPORTS[0]!)).text)
    expect(csvPlain.map((r) => Number(r['timestamp']))).toEqual([3, 4, 5, 9].map((h) => D + h * HOUR))
    expect(csvPlain[1]).toMatchObject({ open: '104', low: '90', volume_base: '2.75', trades: '3' })

    // the hourly grid known by `before`: hour 4 as loaded, hour 9 empty in every field
    const grid = JSON.parse((await get(`${PATHS[0]}&known_by=${before}`)).text).data as Record<string, unknown>[]
    expect(grid[4]).toMatchObject({
      timestamp: D + 4 * HOUR,
      low: 104,
      funding_rate: 3 / 8192,
      open_interest: 12 * 128,
      liquidations_short_usd: 64,
      liquidations_long_usd: 0,
      whale_flow: -256
    })
    expect(grid[9]).toMatchObject({ open: null, funding_rate: null, open_interest: null, whale_flow: null })
    // the newest candles at D 10:00 known by `before`: hour 5 (hour 9 arrived later)
    const multi = JSON.parse((await get(`${PATHS[7]}&known_by=${before}`)).text).data as Record<string, unknown>[]
    expect(multi.map((c) => [c['timeframe'], c['timestamp']])).toEqual([
      ['1m', D + 5 * HOUR + 30 * MIN],
      ['1h', D + 5 * HOUR],
      ['4h', D + 4 * HOUR]
    ])
    const plainGrid = JSON.parse((await get(PATHS[0]!)).text).data as Record<string, unknown>[]
    expect(plainGrid[4]).toMatchObject({
      low: 90,
      funding_rate: 40 / 8192,
      open_interest: 20 * 128,
      liquidations_long_usd: 512,
      whale_flow: 4096 - 256
    })
  })

  it('refuses a known_by in the future or malformed, naming the parameter', async () => {
    for (const p of [PATHS[0]!, PATHS[4]!, EXPORTS[0]!]) {
      const future = await get(`${p}&known_by=${Date.now() + DAY}`)
      expect(future.status, p).toBe(400)
      expect(JSON.parse(future.text).error).toMatchObject({ code: 'invalid_parameter', param: 'known_by' })
      const bad = await get(`${p}&known_by=yesterday`)
      expect(bad.status, p).toBe(400)
      expect(JSON.parse(bad.text).error.param).toBe('known_by')
    }
  })
})
