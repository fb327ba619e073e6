/**
 * SOURCES=bitget through the real server, against the local Bitget protocol server: the venue's records
 * reach the screener, the history API and /v1/health, and the API takes `exchange=bitget` (its schemas
 * derive the venue list from the catalog).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BitgetTestServer } from '../helpers/venues/bitget-server.js'
import { PERPS } from '../helpers/venues/bitget-fixtures.js'
import { until } from '../helpers/until.js'

let venue: BitgetTestServer
let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''
const rec = tmpDir()

const HOUR = 3_600_000
const KEYS = ['liquidation|usdt-futures', ...PERPS.flatMap((s) => [`publicTrade|${s}`, `ticker|${s}`])]
/** Trades two hours old: inside the screener's 24 h and in an hourly bucket the history API has closed. */
const PAST = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR + 60_000

async function get(path: string): Promise<Record<string, unknown> & { rows: Record<string, unknown>[] }> {
  return jsonBody(await fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } }))
}

beforeAll(async () => {
  venue = await new BitgetTestServer().start()
  venue.setTicker('BTCUSDT', { fundingRate: '0.0001', openInterest: '41234.5', markPrice: '97000' })
  venue.setTicker('DOGEUSDT', {
    fundingRate: '-0.0005',
    openInterest: '120000000',
    markPrice: '0.4',
    indexPrice: '0.4'
  })
  venue.setTicker('1000SATSUSDT', { fundingRate: '0.00015', openInterest: '500000', markPrice: '0.0003' })
  venue.longShort.set('BTCUSDT', ['0.6442', '0.3558'])
  venue.longShort.set('DOGEUSDT', ['0.5', '0.5'])
  venue.longShort.set('ETHUSDT', ['0.55', '0.45'])
  venue.longShort.set('1000SATSUSDT', ['0.48', '0.52'])
  // trades from two hours ago, served by the fills history only (nobody subscribed yet)
  venue.trade('BTCUSDT', PAST, 'buy', '2', '97000.0', false)
  srv = await startTestServer({
    SOURCES: 'bitget',
    BITGET_WS_URL: venue.wsUrl,
    BITGET_REST_URL: venue.restUrl,
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

describe('SOURCES=bitget through the real server', () => {
  it('the screener shows Bitget rows: funding with the instrument interval, OI in USD, long/short, volume', async () => {
    venue.trade('BTCUSDT', PAST + 1, 'sell', '1', '97010.0')
    venue.trade('1000SATSUSDT', PAST + 2, 'buy', '3', '0.0003')
    let rows: Record<string, unknown>[] = []
    const ready = (): boolean =>
      rows.some(
        (r) => r['symbol'] === 'BTCUSDT' && r['long_short_ratio_cumulative'] !== null && r['volume_24h_usd'] !== 0
      ) &&
      rows.some((r) => r['symbol'] === 'DOGEUSDT' && r['long_short_ratio_cumulative'] !== null) &&
      rows.some((r) => r['symbol'] === '1000SATSUSDT' && r['volume_24h_usd'] !== 0)
    await until('the Bitget screener rows', async () => {
      rows = (await get('/v1/derivatives/screener?exchange=bitget')).rows
      return ready()
    })
    expect(rows.every((r) => r['exchange'] === 'bitget')).toBe(true)
    const btc = rows.find((r) => r['symbol'] === 'BTCUSDT')
    expect(btc).toMatchObject({
      base: 'BTC',
      funding_rate: 0.0001,
      funding_interval_hours: 8,
      long_short_ratio_cumulative: Number((0.6442 / 0.3558).toFixed(4)),
      open_interest_usd: 41234.5 * 97000
    })
    // the trade sent while nobody listened is not in the stream: only the one published live counts
    expect(btc!['volume_24h_usd']).toBe(97010)
    const doge = rows.find((r) => r['symbol'] === 'DOGEUSDT')
    expect(doge).toMatchObject({ funding_rate: -0.0005, funding_interval_hours: 4, long_short_ratio_cumulative: 1 })
    expect(doge!['funding_rate_annualized']).toBeCloseTo((-0.0005 * 8760) / 4, 12)
    const sats = rows.find((r) => r['symbol'] === '1000SATSUSDT')
    expect(sats).toMatchObject({ base: 'SATS', funding_interval_hours: 1 })
    expect(sats!['open_interest_usd']).toBeCloseTo(500000 * 0.0003, 9)
    expect(sats!['volume_24h_usd']).toBeCloseTo(3000 * 0.0000003, 12)
  })

  it('the history API shows the venue by its catalog id', async () => {
    await until('trades written', () => (srv.running.ctx.pipeline.totals().tables['trades']?.written ?? 0) >= 2)
    const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10)
    const q = `asset=BTC&exchange=bitget&include=ohlcv&interval=1h&start_time=${day(PAST)}&end_time=${day(Date.now())}`
    const body = (await get(`/v1/historical/correlated-data?${q}`)) as unknown as { data: Record<string, unknown>[] }
    const bucket = body.data.find((r) => r['timestamp'] === Math.floor(PAST / HOUR) * HOUR)
    expect(bucket).toMatchObject({ symbol: 'BTCUSDT', exchange: 'bitget', volume_base: 1 })
  })

  it('/v1/health reports the feed with the same counters as the other venues', async () => {
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    const bitget = health.sources.find((s: { name: string }) => s.name === 'bitget')
    expect(bitget).toMatchObject({
      synthetic: false,
      connected: true,
      phase: 'live',
      markets: 4,
      parse_errors: 0,
      venue_errors: 0
    })
    for (const k of [
      'reconnects',
      'stale',
      'unknown_messages',
      'dropped',
      'gaps_found',
      'rest_errors',
      'rate_limited'
    ]) {
      expect(bitget[k], k).toBe(0)
    }
  })
})
