import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { OkxSource } from '../../ingest/sources/okx.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { OkxTestServer } from '../helpers/venues/okx-server.js'
import { fundingRow, liquidationRow, markPriceRow, openInterestRow, tradeRow } from '../helpers/venues/okx-fixtures.js'
import { drainSource } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

const rec = tmpDir()
let live: NormalizedRecord[] = []
let liveStatus: ReturnType<OkxSource['status']>
let subscribed = new Set<string>()
let longShortAsked: string[] = []

/** Records a short OKX session restricted to two swaps: marks, funding, OI, trades, a duplicate, a liquidation, junk. */
beforeAll(async () => {
  const venue = await new OkxTestServer().start()
  venue.longShort.set('BTC', '1.2')
  const source = new OkxSource({
    wsUrl: venue.wsUrl,
    restUrl: venue.restUrl,
    symbols: ['BTC-USDT-SWAP', 'PEPE-USDT-SWAP'],
    log: silentLogger(),
    recordDir: rec.dir,
    tuning: { statisticsPerMinute: 600 }
  })
  const feed = drainSource(source)
  await venue.waitSubscribed(['liquidation-orders|SWAP', 'trades|BTC-USDT-SWAP', 'mark-price|PEPE-USDT-SWAP'])
  subscribed = venue.subscribed()
  const t = Date.now()
  for (const s of ['BTC-USDT-SWAP', 'PEPE-USDT-SWAP']) {
    venue.publish('mark-price', s, [markPriceRow(s, t)])
    venue.publish('funding-rate', s, [fundingRow(s, t, '0.00012', t + 3_600_000, s === 'PEPE-USDT-SWAP' ? 4 : 8)])
    venue.publish('open-interest', s, [openInterestRow(s, '12345.6', t, s === 'BTC-USDT-SWAP')])
  }
  for (let i = 0; i < 20; i++)
    venue.trade('BTC-USDT-SWAP', t + i, String(97000 + i), String(i + 1), i % 3 ? 'buy' : 'sell')
  venue.publish('trades', 'BTC-USDT-SWAP', [tradeRow('BTC-USDT-SWAP', '500000005', t + 4, '97004', '5', 'buy')]) // seen
  venue.trade('PEPE-USDT-SWAP', t, '0.0000201', '7.5', 'sell')
  venue.publish('liquidation-orders', null, [
    liquidationRow('PEPE-USDT-SWAP', [{ side: 'sell', bkPx: '0.0000199', sz: '40', ts: t }]),
    liquidationRow('BTC-USD-SWAP', [{ side: 'buy', bkPx: '97500', sz: '300', ts: t }])
  ])
  venue.sendRaw('{"broken":')
  await new Promise((r) => setTimeout(r, 150))
  venue.trade('PEPE-USDT-SWAP', Date.now(), '0.0000202', '1', 'buy')
  // 22 trades, 2 funding, 2 OI, 1 liquidation, 1 long/short
  await until('recorded session', () => feed.records.length === 28)
  await feed.stop()
  live = feed.records
  liveStatus = source.status()
  longShortAsked = venue.requestLog.filter((p) => p.includes('long-short-account-ratio'))
  await venue.stop()
})

afterAll(() => rec.cleanup())

describe('OKX record and replay', () => {
  it('OKX_SYMBOLS restricts subscriptions and polling; liquidations still cover every swap', () => {
    expect(subscribed).toEqual(
      new Set([
        'liquidation-orders|SWAP',
        ...['BTC-USDT-SWAP', 'PEPE-USDT-SWAP'].flatMap((s) =>
          ['trades', 'funding-rate', 'open-interest', 'mark-price'].map((c) => `${c}|${s}`)
        )
      ])
    )
    // PEPE has no long/short statistics on OKX (support-coin)
    expect(longShortAsked).toEqual(['/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=BTC&period=5m'])
    expect(liveStatus).toMatchObject({ markets: 2, duplicates: 1, parse_errors: 1 })
  })

  it('a replay yields exactly the records of the live session, through the same normalizer', async () => {
    const source = new ReplaySource({ path: rec.dir, speed: 0, log: silentLogger() })
    const feed = drainSource(source)
    await feed.done
    expect(feed.records).toEqual(live)
    expect(
      live.filter((r) => r.kind === 'trade' && r.symbol === 'PEPE-USDT-SWAP').map((r) => (r as { qty: number }).qty)
    ).toEqual([75_000_000, 10_000_000])
    expect(source.status()).toMatchObject({
      phase: 'done',
      rows: live.length,
      parse_errors: liveStatus.parse_errors,
      duplicates: liveStatus.duplicates,
      venue_errors: 0,
      gaps_found: 0
    })
  })

  it('SOURCES=replay:<dir> through the real server writes the recorded OKX trades to the store', async () => {
    const srv = await startTestServer({ SOURCES: `replay:${rec.dir}`, REPLAY_SPEED: 'max', INGEST_FLUSH_MS: '50' })
    try {
      await until('replay done', () => srv.running.ctx.sources[0]!.status().phase === 'done')
      const trades = live.filter((r) => r.kind === 'trade')
      await until(
        'trades written',
        () => (srv.running.ctx.pipeline.totals().tables['trades']?.written ?? 0) === trades.length
      )
      const [row] = await srv.running.ctx.store.query<{ n: number; coins: number }>(
        "SELECT count() AS n, sum(qty) AS coins FROM trades WHERE exchange = 'okx' AND symbol = 'BTC-USDT-SWAP'"
      )
      expect(Number(row!.n)).toBe(20)
      expect(Number(row!.coins)).toBeCloseTo((20 * 21 * 0.01) / 2, 9) // 1..20 contracts of 0.01 BTC
    } finally {
      await srv.stop()
    }
  })
})

describe('configuration of the OKX source', () => {
  it('accepts okx and includes it in live; OKX_SYMBOLS takes native ids and BTCUSDT-style names', () => {
    expect(loadConfig({ SOURCES: 'okx' }).sources).toEqual(['okx'])
    expect(loadConfig({ SOURCES: 'live' }).sources).toContain('okx')
    expect(loadConfig({ OKX_SYMBOLS: 'btc-usdt-swap, ETHUSDT,BTCUSDT' }).venues.okx.symbols).toEqual([
      'BTC-USDT-SWAP',
      'ETH-USDT-SWAP'
    ])
    expect(() => loadConfig({ OKX_SYMBOLS: 'BTC-USD-SWAP' })).toThrow('OKX_SYMBOLS must be a comma list of USDT swaps')
    expect(loadConfig({}).venues.okx.wsUrl).toBe('wss://ws.okx.com:8443/ws/v5/public')
    expect(loadConfig({}).venues.okx.restUrl).toBe('https://www.okx.com')
    expect(() => loadConfig({ OKX_WS_URL: 'https://ws.okx.com' })).toThrow('OKX_WS_URL must use ws or wss')
    expect(loadConfig({ OKX_REST_URL: 'http://127.0.0.1:9/' }).venues.okx.restUrl).toBe('http://127.0.0.1:9')
  })
})
