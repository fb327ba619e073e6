import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BinanceTestServer } from '../helpers/venues/binance-server.js'
import { MARK, PERPS, markPriceUpdate } from '../helpers/venues/binance-fixtures.js'
import { until } from '../helpers/until.js'

let venue: BinanceTestServer
let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''
const rec = tmpDir()

const STREAMS = ['!markPrice@arr@1s', '!forceOrder@arr', ...PERPS.map((s) => `${s.toLowerCase()}@aggTrade`)]

async function screener(): Promise<{ rows: Record<string, unknown>[] }> {
  return jsonBody(
    await fetch(`${srv.base}/v1/derivatives/screener?exchange=binance`, { headers: { 'x-api-key': key } })
  )
}

beforeAll(async () => {
  venue = await new BinanceTestServer().start()
  for (const s of PERPS) {
    venue.openInterest.set(s, s === 'BTCUSDT' ? '80000.5' : '1000')
    venue.longShort.set(s, s === 'BTCUSDT' ? '1.8105' : '1')
  }
  srv = await startTestServer({
    SOURCES: 'binance',
    BINANCE_WS_URL: venue.wsUrl,
    BINANCE_REST_URL: venue.restUrl,
    RECORD_DIR: rec.dir,
    INGEST_FLUSH_MS: '50'
  })
  key = (await srv.running.ctx.keys.create('trader', 'feed')).key
  await venue.waitSubscribed(STREAMS)
})

afterAll(async () => {
  await srv.stop()
  await venue.stop()
  rec.cleanup()
})

describe('SOURCES=binance through the real server', () => {
  it('the screener reflects funding, open interest, long/short and volume arriving through the adapter', async () => {
    const now = Date.now()
    venue.publish(
      '!markPrice@arr@1s',
      PERPS.map((s) => markPriceUpdate(s, now, s === 'SOLVUSDT' ? '-0.00050000' : '0.00010000', now + 3_600_000))
    )
    venue.trade('BTCUSDT', now, '97000.0', '2.0', false)
    venue.trade('BTCUSDT', now + 1, '97010.0', '1.0', true)
    let rows: Record<string, unknown>[] = []
    const btcReady = (): boolean =>
      rows.some(
        (r) => r['symbol'] === 'BTCUSDT' && r['open_interest_usd'] !== null && r['long_short_ratio_cumulative'] !== null
      )
    for (let i = 0; i < 200 && !btcReady(); i++) {
      rows = (await screener()).rows
      await new Promise((r) => setTimeout(r, 25))
    }
    const btc = rows.find((r) => r['symbol'] === 'BTCUSDT')
    expect(btc).toMatchObject({
      exchange: 'binance',
      base: 'BTC',
      funding_rate: 0.0001,
      funding_interval_hours: 8,
      long_short_ratio_cumulative: 1.8105,
      open_interest_usd: 80000.5 * Number(MARK['BTCUSDT']),
      volume_24h_usd: 97000 * 2 + 97010
    })
    const solv = rows.find((r) => r['symbol'] === 'SOLVUSDT')
    expect(solv).toMatchObject({ funding_rate: -0.0005, funding_interval_hours: 1 })
    expect(solv!['funding_rate_annualized']).toBeCloseTo(-0.0005 * 8760, 9)
    expect(rows.find((r) => r['symbol'] === '1000PEPEUSDT')).toMatchObject({ base: 'PEPE', funding_interval_hours: 4 })
  })

  it('/v1/health reports the feed with its counters', async () => {
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    const bn = health.sources.find((s: { name: string }) => s.name === 'binance')
    expect(bn).toMatchObject({ synthetic: false, connected: true, phase: 'live', markets: 4, parse_errors: 0 })
    // the receive time of a message of this server run (the server started at most a minute ago), not a stale stamp
    expect(bn.last_message_ts).toBeGreaterThan(Date.now() - 60_000)
    expect(bn.last_message_ts).toBeLessThanOrEqual(Date.now())
    expect(bn.rows).toBeGreaterThan(0)
    for (const k of ['reconnects', 'gaps_found', 'gaps_filled', 'dropped', 'unknown_messages']) {
      expect(bn[k], k).toBe(0)
    }
  })

  it('stores the records (trades reach the trades table)', async () => {
    await until('trades written', () => (srv.running.ctx.pipeline.totals().tables['trades']?.written ?? 0) >= 2)
    const [row] = await srv.running.ctx.store.query<{ n: number }>(
      "SELECT count() AS n FROM trades WHERE exchange = 'binance' AND symbol = 'BTCUSDT'"
    )
    expect(Number(row!.n)).toBe(2)
  })

  it('RECORD_DIR holds the raw messages in an hourly gzip file per venue', async () => {
    await until('recording file', () => fs.existsSync(path.join(rec.dir, 'binance')))
    await until('recording file', () => fs.readdirSync(path.join(rec.dir, 'binance')).length > 0)
    const files = fs.readdirSync(path.join(rec.dir, 'binance'))
    // one file per UTC hour of the session: this hour's (and the previous one's if the hour turned)
    const hour = (ms: number): string => `binance-${new Date(ms).toISOString().slice(0, 13)}.ndjson.gz`
    expect(files.length).toBeGreaterThanOrEqual(1)
    expect(files.length).toBeLessThanOrEqual(2)
    for (const f of files) expect([hour(Date.now()), hour(Date.now() - 3_600_000)]).toContain(f)
    expect(fs.statSync(path.join(rec.dir, 'binance', files[0]!)).size).toBeGreaterThan(0)
  })
})
