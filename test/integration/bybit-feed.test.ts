import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { BybitSource } from '../../ingest/sources/bybit.js'
import { BybitTestServer } from '../helpers/venues/bybit-server.js'
import { PERPS, liquidationMessage, tradeMessage, tradeRow } from '../helpers/venues/bybit-fixtures.js'
import { drainSource, tradeIds } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'
import { silenceUntilReopened } from '../helpers/venues/stale-reopen.js'

let server: BybitTestServer
let feed: ReturnType<typeof drainSource>
let source: BybitSource

const TOPICS = PERPS.flatMap((s) => [`publicTrade.${s}`, `tickers.${s}`, `allLiquidation.${s}`])

beforeAll(async () => {
  server = await new BybitTestServer({ pageSize: 3 }).start()
  for (const s of PERPS) {
    server.setTicker(s, s === 'BTCUSDT' ? { openInterest: '52000.125', openInterestValue: '5044017325.01' } : {})
    server.ratios.set(s, ['0.6', '0.4'])
  }
  source = new BybitSource({
    wsUrl: server.wsUrl,
    restUrl: server.restUrl,
    symbols: [],
    log: silentLogger(),
    // small connections so the markets span three sockets; fast pings, reconnects and stale detection
    tuning: {
      topicsPerConnection: 5,
      subscribeBatch: 2,
      subscribeIntervalMs: 5,
      pingMs: 100,
      backoff: { baseMs: 20, maxMs: 100 },
      staleMs: 2_000
    }
  })
  feed = drainSource(source)
  await server.waitSubscribed(TOPICS)
})

afterAll(async () => {
  await feed.stop()
  await server.stop()
})

describe('Bybit feed against a local protocol server', () => {
  it('discovers the USDT perpetuals over every instruments-info page and subscribes in small requests', () => {
    expect(server.requests.get('/v5/market/instruments-info')).toBe(3) // 7 instruments, 3 a page
    expect(server.subscribed()).toEqual(new Set(TOPICS))
    expect(server.connections).toBe(3) // 12 topics, 5 per connection
    expect(server.subscribeRequests).toBe(7) // 5 + 5 + 2 topics in requests of at most 2
    expect(server.maxArgs).toBe(2)
    expect(source.status()).toMatchObject({ name: 'bybit', connected: true, markets: 4, connections: 3 })
  })

  it('sends the app-level ping; the pongs are protocol chatter, not unknown messages', async () => {
    const before = server.pings
    await until('pings', () => server.pings >= before + 6)
    expect(source.status()).toMatchObject({ unknown_messages: 0, venue_errors: 0, parse_errors: 0 })
  })

  it('normalizes trades, funding, liquidations, open interest and long/short from stream and REST', async () => {
    const now = Date.now()
    server.trades('BTCUSDT', [
      tradeRow('BTCUSDT', now, 'Buy', '0.5', '97001.5', 'b-1'),
      tradeRow('BTCUSDT', now, 'Sell', '0.25', '97001.0', 'b-2')
    ])
    server.publish(liquidationMessage('ETHUSDT', now, 'Buy', '2.00', '3390.10') as { topic: string })
    await until('every kind', () => {
      const kinds = new Set(feed.records.map((r) => r.kind))
      return ['trade', 'funding', 'liquidation', 'open_interest', 'long_short'].every((k) => kinds.has(k as never))
    })
    await until('long/short of every market', () => feed.records.filter((r) => r.kind === 'long_short').length === 4)
    expect(tradeIds(feed.records, 'BTCUSDT')).toEqual(['b-1', 'b-2'])
    const oi = feed.records.find((r) => r.kind === 'open_interest' && r.symbol === 'BTCUSDT')
    expect(oi).toMatchObject({ oi_base: 52000.125, oi_usd: 5044017325.01 })
    const ordi = feed.records.find((r) => r.kind === 'funding' && r.symbol === 'ORDIUSDT')
    expect(ordi).toMatchObject({ interval_hours: 1, funding_rate: 0.0001, mark_price: 41.25 })
    expect(feed.records.find((r) => r.kind === 'liquidation')).toMatchObject({
      symbol: 'ETHUSDT',
      side: 'sell',
      qty: 2
    })
    expect(feed.records.find((r) => r.kind === 'long_short')).toMatchObject({ long_short_ratio: 0.6 / 0.4 })
    expect(feed.chunks.map((c) => c.table)).toEqual(
      expect.arrayContaining(['trades', 'funding', 'liquidations', 'open_interest', 'long_short'])
    )
  })

  it('merges ticker deltas: a delta with only the mark price keeps open interest and funding', async () => {
    server.tickerDelta('BTCUSDT', { markPrice: '97500.00' })
    await until('delta applied', () => source.normalizer.tickerOf('BTCUSDT')?.markPrice === 97500)
    expect(source.normalizer.tickerOf('BTCUSDT')).toMatchObject({
      markPrice: 97500,
      openInterest: 52000.125,
      openInterestValue: 5044017325.01,
      fundingRate: 0.0001
    })
  })

  it('after a disconnect mid-stream it reconnects, resubscribes every topic and takes the new snapshot', async () => {
    const s0 = source.status()
    const requests = server.subscribeRequests
    server.dropAll()
    // while nobody is connected the market moves: the snapshot on resubscribe carries it
    server.setTicker('ETHUSDT', { openInterest: '777.5', openInterestValue: '2643927.63' })
    await until('reconnected', () => source.status().reconnects! >= s0.reconnects! + 3 && source.status().connected)
    await server.waitSubscribed(TOPICS)
    expect(server.subscribeRequests - requests).toBe(7)
    await until('new snapshot', () => source.normalizer.tickerOf('ETHUSDT')?.openInterest === 777.5)
    const now = Date.now()
    server.publish(
      tradeMessage('ETHUSDT', now, [tradeRow('ETHUSDT', now, 'Sell', '1.5', '3401.00', 'e-1')]) as { topic: string }
    )
    await until('trade after reconnect', () => tradeIds(feed.records, 'ETHUSDT').length === 1)
    // BTCUSDT had traded: its reconnect window was checked, the venue's page holds its last trade
    await until('BTCUSDT page', () => server.requests.get('/v5/market/recent-trade') === 1)
    expect(source.status()).toMatchObject({ connected: true, gaps_found: 1, gaps_unfilled: 0, parse_errors: 0 })
    expect(tradeIds(feed.records, 'BTCUSDT')).toEqual(['b-1', 'b-2'])
  })

  it('counts malformed and unknown messages, skips them and keeps going', async () => {
    const s0 = source.status()
    server.sendRaw('{"topic":"publicTrade.BTCUSDT","type":"snapshot","data":[') // cut short: not JSON
    server.sendRaw('not json at all')
    server.sendRaw(JSON.stringify({ topic: 'orderbook.50.BTCUSDT', type: 'snapshot', ts: 1, data: { s: 'BTCUSDT' } }))
    server.publish({
      topic: 'publicTrade.BTCUSDT',
      type: 'snapshot',
      ts: 1,
      data: [{ s: 'BTCUSDT', S: 'Up' }]
    } as never)
    const now = Date.now()
    server.publish(
      tradeMessage('BTCUSDT', now, [tradeRow('BTCUSDT', now, 'Buy', '0.1', '97100.0', 'b-3')]) as { topic: string }
    )
    await until('trade after junk', () => tradeIds(feed.records, 'BTCUSDT').length === 3)
    const s1 = source.status()
    // raw junk reaches all three connections; the bad trade only the one subscribed to it
    expect(s1.parse_errors! - s0.parse_errors!).toBe(2 * 3 + 1)
    expect(s1.unknown_messages! - s0.unknown_messages!).toBe(3)
    expect(s1.connected).toBe(true)
  })

  it('reopens a connection that goes silent (stale feed)', async () => {
    await silenceUntilReopened(server, source, TOPICS)
    const now = Date.now()
    server.publish(
      tradeMessage('BTCUSDT', now, [tradeRow('BTCUSDT', now, 'Buy', '0.2', '97200.0', 'b-stale')]) as {
        topic: string
      }
    )
    await until('trade after reopen', () => tradeIds(feed.records, 'BTCUSDT').includes('b-stale'))
  })
})
