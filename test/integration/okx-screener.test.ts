import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { OkxTestServer } from '../helpers/venues/okx-server.js'
import { SWAPS, fundingRow, markPriceRow, openInterestRow } from '../helpers/venues/okx-fixtures.js'
import { until } from '../helpers/until.js'

let venue: OkxTestServer
let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''
const rec = tmpDir()

const HOUR = 3_600_000
const KEYS = [
  'liquidation-orders|SWAP',
  ...SWAPS.flatMap((s) => ['trades', 'funding-rate', 'open-interest', 'mark-price'].map((c) => `${c}|${s}`))
]
/** Readings two hours old: inside the screener's 24 h and in an hourly bucket the history API has closed. */
const PAST = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR + 60_000
/** BTC-USDT-SWAP open interest as OKX sends it: contracts, and USD. */
const BTC_OI_CONTRACTS = '3133489.89'
const BTC_OI_USD = '3039488326.79'

async function get(path: string): Promise<Record<string, unknown> & { rows: Record<string, unknown>[] }> {
  return jsonBody(await fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } }))
}

beforeAll(async () => {
  venue = await new OkxTestServer().start()
  venue.longShort.set('BTC', '1.8105')
  venue.longShort.set('ETH', '1.1')
  venue.longShort.set('DOGE', '0.95')
  srv = await startTestServer({
    SOURCES: 'okx',
    OKX_WS_URL: venue.wsUrl,
    OKX_REST_URL: venue.restUrl,
    RECORD_DIR: rec.dir,
    INGEST_FLUSH_MS: '50'
  })
  key = (await srv.running.ctx.keys.create('trader', 'feed')).key
  await venue.waitSubscribed(KEYS)
})

afterAll(async () => {
  await srv.stop()
  await venue.stop()
  rec.cleanup()
})

describe('SOURCES=okx through the real server', () => {
  it('the screener shows OKX rows: OI in USD, funding with its interval and annualized rate, volume from coins', async () => {
    const now = Date.now()
    for (const s of SWAPS) venue.publish('mark-price', s, [markPriceRow(s, now)])
    const settle = Math.ceil(now / HOUR) * HOUR
    venue.publish('funding-rate', 'BTC-USDT-SWAP', [fundingRow('BTC-USDT-SWAP', now, '0.0001', settle, 8)])
    venue.publish('funding-rate', 'DOGE-USDT-SWAP', [fundingRow('DOGE-USDT-SWAP', now, '-0.0005', settle, 1)])
    venue.publish('funding-rate', 'PEPE-USDT-SWAP', [fundingRow('PEPE-USDT-SWAP', now, '0.00015', settle, 4)])
    venue.publish('open-interest', 'BTC-USDT-SWAP', [
      { ...openInterestRow('BTC-USDT-SWAP', BTC_OI_CONTRACTS, PAST), oiUsd: BTC_OI_USD }
    ])
    venue.publish('open-interest', 'PEPE-USDT-SWAP', [openInterestRow('PEPE-USDT-SWAP', '1500', PAST, false)])
    // 200 + 100 contracts of 0.01 BTC = 3 BTC; 3 contracts of 10,000,000 PEPE
    venue.trade('BTC-USDT-SWAP', PAST, '97000.0', '200', 'buy')
    venue.trade('BTC-USDT-SWAP', PAST + 1, '97010.0', '100', 'sell')
    venue.trade('PEPE-USDT-SWAP', PAST + 2, '0.0000201', '3', 'buy')
    let rows: Record<string, unknown>[] = []
    const ready = (): boolean =>
      rows.some((r) => r['symbol'] === 'BTC-USDT-SWAP' && r['long_short_ratio_cumulative'] !== null) &&
      rows.some((r) => r['symbol'] === 'DOGE-USDT-SWAP' && r['long_short_ratio_cumulative'] !== null) &&
      rows.some((r) => r['symbol'] === 'PEPE-USDT-SWAP' && r['open_interest_usd'] !== null && r['volume_24h_usd'] !== 0)
    for (let i = 0; i < 400 && !ready(); i++) {
      rows = (await get('/v1/derivatives/screener?exchange=okx')).rows
      await new Promise((r) => setTimeout(r, 25))
    }
    expect(rows.every((r) => r['exchange'] === 'okx')).toBe(true)
    const btc = rows.find((r) => r['symbol'] === 'BTC-USDT-SWAP')
    expect(btc).toMatchObject({
      exchange: 'okx',
      base: 'BTC',
      funding_rate: 0.0001,
      funding_interval_hours: 8,
      long_short_ratio_cumulative: 1.8105,
      open_interest_usd: Number(BTC_OI_USD),
      volume_24h_usd: 97000 * 2 + 97010 * 1
    })
    expect(btc!['funding_rate_annualized']).toBeCloseTo((0.0001 * 8760) / 8, 12)
    const doge = rows.find((r) => r['symbol'] === 'DOGE-USDT-SWAP')
    expect(doge).toMatchObject({ funding_rate: -0.0005, funding_interval_hours: 1, long_short_ratio_cumulative: 0.95 })
    expect(doge!['funding_rate_annualized']).toBeCloseTo(-0.0005 * 8760, 12)
    const pepe = rows.find((r) => r['symbol'] === 'PEPE-USDT-SWAP')
    expect(pepe).toMatchObject({ base: 'PEPE', funding_interval_hours: 4 })
    expect(pepe!['funding_rate_annualized']).toBeCloseTo((0.00015 * 8760) / 4, 12)
    // no oiUsd in the push: 1500 contracts x 10,000,000 PEPE x the mark price
    expect(pepe!['open_interest_usd']).toBeCloseTo(15_000_000_000 * 0.0000201, 6)
    expect(pepe!['volume_24h_usd']).toBeCloseTo(30_000_000 * 0.0000201, 9)
  })

  it('the history API shows OI and volume in coins (contracts x contract value)', async () => {
    await until('trades written', () => (srv.running.ctx.pipeline.totals().tables['trades']?.written ?? 0) >= 3)
    await until('oi written', () => (srv.running.ctx.pipeline.totals().tables['open_interest']?.written ?? 0) >= 2)
    const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10)
    const q = `asset=BTC&exchange=okx&include=ohlcv,oi&interval=1h&start_time=${day(PAST)}&end_time=${day(Date.now())}`
    const body = (await get(`/v1/historical/correlated-data?${q}`)) as unknown as { data: Record<string, unknown>[] }
    const bucket = body.data.find((r) => r['timestamp'] === Math.floor(PAST / HOUR) * HOUR)
    expect(bucket).toMatchObject({
      symbol: 'BTC-USDT-SWAP',
      exchange: 'okx',
      volume_base: 3,
      open_interest_base: 31334.8989,
      open_interest: Number(BTC_OI_USD)
    })
  })

  it('/v1/health reports the feed with the same counters as Binance', async () => {
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    const okx = health.sources.find((s: { name: string }) => s.name === 'okx')
    expect(okx).toMatchObject({
      synthetic: false,
      connected: true,
      phase: 'live',
      markets: 4,
      connections: 1,
      parse_errors: 0,
      venue_errors: 0
    })
    // the receive time of a message of this server run (the server started at most a minute ago), not a stale stamp
    expect(okx.last_message_ts).toBeGreaterThan(Date.now() - 60_000)
    expect(okx.last_message_ts).toBeLessThanOrEqual(Date.now())
    expect(okx.rows).toBeGreaterThan(0)
    for (const k of [
      'reconnects',
      'stale',
      'unknown_messages',
      'dropped',
      'gaps_found',
      'rest_errors',
      'rate_limited'
    ]) {
      expect(okx[k], k).toBe(0)
    }
  })
})
