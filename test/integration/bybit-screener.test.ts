import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BybitTestServer } from '../helpers/venues/bybit-server.js'
import { PERPS, tradeMessage, tradeRow } from '../helpers/venues/bybit-fixtures.js'
import { until } from '../helpers/until.js'

let venue: BybitTestServer
let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''
const rec = tmpDir()

const TOPICS = PERPS.flatMap((s) => [`publicTrade.${s}`, `tickers.${s}`, `allLiquidation.${s}`])
const get = async (p: string) => jsonBody(await fetch(`${srv.base}${p}`, { headers: { 'x-api-key': key } }))

async function screenerUntil(ready: (rows: Record<string, unknown>[]) => boolean): Promise<Record<string, unknown>[]> {
  let rows: Record<string, unknown>[] = []
  for (let i = 0; i < 400 && !ready(rows); i++) {
    rows = (await get('/v1/derivatives/screener?exchange=bybit')).rows
    if (!ready(rows)) await new Promise((r) => setTimeout(r, 25))
  }
  return rows
}

beforeAll(async () => {
  venue = await new BybitTestServer().start()
  venue.setTicker('BTCUSDT', { openInterest: '52000.125', openInterestValue: '5044017325.01', fundingRate: '0.0001' })
  venue.setTicker('ETHUSDT', { fundingRate: '0.00005' })
  // ORDI on 1 h funding at Bybit's cap: longs pay 0.5% an hour, extreme crowding
  venue.setTicker('ORDIUSDT', { fundingRate: '0.005', openInterest: '250000', openInterestValue: '10312500.00' })
  venue.setTicker('1000PEPEUSDT', { openInterest: '5000000', openInterestValue: '100750.00', fundingRate: '-0.0002' })
  venue.ratios.set('BTCUSDT', ['0.7', '0.3'])
  venue.ratios.set('ORDIUSDT', ['0.75', '0.25'])
  venue.ratios.set('ETHUSDT', ['0.5', '0.5'])
  venue.ratios.set('1000PEPEUSDT', ['0.5', '0.5'])
  srv = await startTestServer({
    SOURCES: 'bybit',
    BYBIT_WS_URL: venue.wsUrl,
    BYBIT_REST_URL: venue.restUrl,
    RECORD_DIR: rec.dir,
    INGEST_FLUSH_MS: '50'
  })
  key = (await srv.running.ctx.keys.create('pro', 'feed')).key
  await venue.waitSubscribed(TOPICS)
})

afterAll(async () => {
  await srv.stop()
  await venue.stop()
  rec.cleanup()
})

describe('SOURCES=bybit through the real server', () => {
  it('the screener shows the Bybit rows: OI in USD, funding rate, interval, annualized rate, long/short, volume', async () => {
    const now = Date.now()
    venue.publish(
      tradeMessage('BTCUSDT', now, [
        tradeRow('BTCUSDT', now, 'Buy', '2.0', '97000.0', 't-1'),
        tradeRow('BTCUSDT', now + 1, 'Sell', '1.0', '97010.0', 't-2')
      ]) as { topic: string }
    )
    const rows = await screenerUntil(
      (rs) =>
        PERPS.every((s) => rs.some((r) => r['symbol'] === s && r['long_short_ratio_cumulative'] !== null)) &&
        rs.some((r) => r['symbol'] === 'BTCUSDT' && r['volume_24h_usd'] !== 0)
    )
    expect(rows.map((r) => r['symbol']).sort()).toEqual([...PERPS].sort())
    expect(rows.find((r) => r['symbol'] === 'BTCUSDT')).toMatchObject({
      exchange: 'bybit',
      base: 'BTC',
      funding_rate: 0.0001,
      funding_interval_hours: 8,
      funding_rate_annualized: (0.0001 * 8760) / 8,
      long_short_ratio_cumulative: 0.7 / 0.3,
      open_interest_usd: 5044017325.01,
      volume_24h_usd: 97000 * 2 + 97010
    })
    expect(rows.find((r) => r['symbol'] === 'ORDIUSDT')).toMatchObject({
      funding_rate: 0.005,
      funding_interval_hours: 1,
      funding_rate_annualized: 0.005 * 8760,
      open_interest_usd: 10312500
    })
    expect(rows.find((r) => r['symbol'] === '1000PEPEUSDT')).toMatchObject({
      base: 'PEPE',
      funding_rate: -0.0002,
      funding_interval_hours: 4,
      funding_rate_annualized: (-0.0002 * 8760) / 4,
      open_interest_usd: 100750
    })
  })

  it('stores open interest in coins and USD (1000PEPE contracts become PEPE)', async () => {
    await until(
      'open interest written',
      () => (srv.running.ctx.pipeline.totals().tables['open_interest']?.written ?? 0) >= 4
    )
    const rows = await srv.running.ctx.store.query<{ symbol: string; base: string; oi_base: number; oi_usd: number }>(
      "SELECT symbol, base, oi_base, oi_usd FROM open_interest WHERE exchange = 'bybit' ORDER BY symbol"
    )
    const by = Object.fromEntries(rows.map((r) => [r.symbol, r]))
    expect(by['BTCUSDT']).toMatchObject({ base: 'BTC', oi_base: 52000.125, oi_usd: 5044017325.01 })
    expect(by['1000PEPEUSDT']).toMatchObject({ base: 'PEPE', oi_base: 5_000_000_000, oi_usd: 100750 })
  })

  it('/v1/confirm uses Bybit funding and long/short, and follows a funding flip at settlement', async () => {
    const long = await get('/v1/confirm?symbol=ORDI&direction=long')
    expect(long).toMatchObject({
      symbol: 'ORDI',
      derivatives: { funding_rate: 0.005 },
      smart_money: { long_short_ratio: 3 }
    })
    expect(long.reasons.join(' ')).toMatch(/funding 0\.5000% per 1h = 4\.000% per 8h/)
    expect(long.reasons.join(' ')).toMatch(/long\/short ratio 3\.00: longs crowded/)
    expect(long.deriv_score).toBeLessThan(0)
    // settlement: the next funding time moves and the rate flips; sampled at once, not after a minute
    venue.tickerDelta('ORDIUSDT', { fundingRate: '-0.005', nextFundingTime: String(Date.now() + 3_600_000) })
    let after = long
    for (let i = 0; i < 200 && after.derivatives.funding_rate !== -0.005; i++) {
      await new Promise((r) => setTimeout(r, 25))
      after = await get('/v1/confirm?symbol=ORDI&direction=long')
    }
    expect(after.derivatives.funding_rate).toBe(-0.005)
    expect(after.reasons.join(' ')).toMatch(/funding -0\.5000% per 1h = -4\.000% per 8h/)
    expect(after.deriv_score).toBeGreaterThan(long.deriv_score)
  })

  it('/v1/health reports the feed with its counters', async () => {
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    const bb = health.sources.find((s: { name: string }) => s.name === 'bybit')
    expect(bb).toMatchObject({ synthetic: false, connected: true, phase: 'live', markets: 4, connections: 1 })
    expect(bb).toMatchObject({ parse_errors: 0, unknown_messages: 0, venue_errors: 0, rest_errors: 0, rate_limited: 0 })
    expect(bb).toMatchObject({ reconnects: 0, gaps_found: 0, gaps_filled: 0, gaps_unfilled: 0, dropped: 0 })
    // the receive time of a message of this server run (the server started at most a minute ago), not a stale stamp
    expect(bb.last_message_ts).toBeGreaterThan(Date.now() - 60_000)
    expect(bb.last_message_ts).toBeLessThanOrEqual(Date.now())
    expect(bb.rows).toBeGreaterThan(0)
  })

  it('RECORD_DIR holds the raw messages in an hourly gzip file per venue', async () => {
    await until('recording file', () => fs.existsSync(path.join(rec.dir, 'bybit')))
    await until('recording file', () => fs.readdirSync(path.join(rec.dir, 'bybit')).length > 0)
    const files = fs.readdirSync(path.join(rec.dir, 'bybit'))
    // one file per UTC hour of the session: this hour's (and the previous one's if the hour turned)
    const hour = (ms: number): string => `bybit-${new Date(ms).toISOString().slice(0, 13)}.ndjson.gz`
    expect(files.length).toBeGreaterThanOrEqual(1)
    expect(files.length).toBeLessThanOrEqual(2)
    for (const f of files) expect([hour(Date.now()), hour(Date.now() - 3_600_000)]).toContain(f)
    expect(fs.statSync(path.join(rec.dir, 'bybit', files[0]!)).size).toBeGreaterThan(0)
  })
})
