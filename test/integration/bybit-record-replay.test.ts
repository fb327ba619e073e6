import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { BybitSource } from '../../ingest/sources/bybit.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BybitTestServer } from '../helpers/venues/bybit-server.js'
import { PERPS, liquidationMessage, tradeMessage, tradeRow } from '../helpers/venues/bybit-fixtures.js'
import { drainSource } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

const rec = tmpDir()
let live: NormalizedRecord[] = []
let liveStatus: ReturnType<BybitSource['status']>

/** Records a short session: ticker snapshots and deltas (a settlement), trades, a liquidation, long/short, junk. */
beforeAll(async () => {
  const venue = await new BybitTestServer().start()
  for (const s of PERPS) {
    venue.setTicker(s, { openInterest: '1500' })
    venue.ratios.set(s, ['0.55', '0.45'])
  }
  const source = new BybitSource({
    wsUrl: venue.wsUrl,
    restUrl: venue.restUrl,
    symbols: ['BTCUSDT', '1000PEPEUSDT'],
    log: silentLogger(),
    recordDir: rec.dir
  })
  const feed = drainSource(source)
  const topics = ['BTCUSDT', '1000PEPEUSDT'].flatMap((s) => [`publicTrade.${s}`, `tickers.${s}`, `allLiquidation.${s}`])
  await venue.waitSubscribed(topics)
  const t = Date.now()
  for (let i = 0; i < 10; i++) {
    venue.publish(
      tradeMessage('BTCUSDT', t + i, [
        tradeRow('BTCUSDT', t + i, i % 3 ? 'Buy' : 'Sell', '0.01', String(97000 + i), `r-${i}`)
      ]) as { topic: string }
    )
  }
  venue.publish(
    tradeMessage('1000PEPEUSDT', t, [tradeRow('1000PEPEUSDT', t, 'Sell', '1000', '0.0201', 'p-1')]) as { topic: string }
  )
  venue.tickerDelta('BTCUSDT', { markPrice: '97100.00' }, t + 20)
  venue.tickerDelta('BTCUSDT', { fundingRate: '0.0002', nextFundingTime: String(t + 8 * 3_600_000) }, t + 40)
  venue.publish(liquidationMessage('1000PEPEUSDT', t, 'Sell', '50000', '0.0203') as { topic: string })
  venue.sendRaw('{"broken":')
  await until('recorded session', () => {
    const kinds = feed.records.map((r) => r.kind)
    return (
      kinds.filter((k) => k === 'trade').length === 11 &&
      kinds.filter((k) => k === 'long_short').length === 2 &&
      kinds.filter((k) => k === 'funding').length === 3 &&
      kinds.includes('liquidation')
    )
  })
  await feed.stop()
  live = feed.records
  liveStatus = source.status()
  await venue.stop()
})

afterAll(() => rec.cleanup())

describe('Bybit record and replay', () => {
  it('a replay yields exactly the records of the live session, through the same normalizer', async () => {
    const source = new ReplaySource({ path: rec.dir, speed: 0, log: silentLogger() })
    const feed = drainSource(source)
    await feed.done
    expect(live.map((r) => r.kind).sort()).toEqual([
      'funding',
      'funding',
      'funding',
      'liquidation',
      'long_short',
      'long_short',
      'open_interest',
      'open_interest',
      ...Array<string>(11).fill('trade')
    ])
    expect(feed.records).toEqual(live)
    expect(source.status()).toMatchObject({
      phase: 'done',
      rows: live.length,
      parse_errors: liveStatus.parse_errors,
      unknown_messages: 0,
      gaps_found: 0
    })
    expect(liveStatus.parse_errors).toBe(1)
  })
})

describe('Bybit configuration', () => {
  it('SOURCES=bybit, its URLs and symbols, naming bad values', () => {
    expect(loadConfig({ SOURCES: 'bybit' }).sources).toEqual(['bybit'])
    expect(loadConfig({}).venues.bybit).toMatchObject({
      wsUrl: 'wss://stream.bybit.com/v5/public/linear',
      restUrl: 'https://api.bybit.com',
      symbols: []
    })
    expect(() => loadConfig({ BYBIT_WS_URL: 'https://stream.bybit.com' })).toThrow('BYBIT_WS_URL must use ws or wss')
    expect(() => loadConfig({ BYBIT_REST_URL: 'nope' })).toThrow('BYBIT_REST_URL must be an http(s) URL')
    expect(loadConfig({ BYBIT_REST_URL: 'http://127.0.0.1:9/' }).venues.bybit.restUrl).toBe('http://127.0.0.1:9')
    expect(loadConfig({ BYBIT_SYMBOLS: 'btcusdt, 1000PEPEUSDT' }).venues.bybit.symbols).toEqual([
      'BTCUSDT',
      '1000PEPEUSDT'
    ])
    expect(() => loadConfig({ BYBIT_SYMBOLS: 'BTC-USDT' })).toThrow('BYBIT_SYMBOLS must be a comma list of symbols')
  })
})
