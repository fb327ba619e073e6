import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { BinanceSource } from '../../ingest/sources/binance.js'
import { BinanceTestServer } from '../helpers/venues/binance-server.js'
import { MARK, PERPS, markPriceUpdate, forceOrderEvent } from '../helpers/venues/binance-fixtures.js'
import { drainSource, tradeIds } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'
import { silenceUntilReopened } from '../helpers/venues/stale-reopen.js'

let server: BinanceTestServer
let feed: ReturnType<typeof drainSource>
let source: BinanceSource

const STREAMS = ['!markPrice@arr@1s', '!forceOrder@arr', ...PERPS.map((s) => `${s.toLowerCase()}@aggTrade`)]
const T0 = Date.now()

beforeAll(async () => {
  server = await new BinanceTestServer({ pingMs: 100 }).start()
  for (const s of PERPS) {
    server.openInterest.set(s, '1000')
    server.longShort.set(s, '1.5')
  }
  source = new BinanceSource({
    wsUrl: server.wsUrl,
    restUrl: server.restUrl,
    symbols: [],
    log: silentLogger(),
    // small connections so the markets span two sockets; fast reconnects and stale detection for the test
    tuning: {
      streamsPerConnection: 4,
      subscribeBatch: 2,
      subscribeIntervalMs: 5,
      backoff: { baseMs: 20, maxMs: 100 },
      staleMs: 2_000
    }
  })
  feed = drainSource(source)
  await server.waitSubscribed(STREAMS)
})

afterAll(async () => {
  await feed.stop()
  await server.stop()
})

describe('Binance feed against a local protocol server', () => {
  it('discovers the USDT perpetuals and subscribes their streams over paced SUBSCRIBE messages', () => {
    expect(server.subscribed()).toEqual(new Set(STREAMS))
    expect(server.connections).toBe(2) // 6 streams, 4 per connection
    expect(server.subscribeMessages).toBe(3) // 4 + 2 streams in batches of 2
    expect(source.status()).toMatchObject({ name: 'binance', connected: true, markets: 4, connections: 2 })
  })

  it('answers server pings with pongs', async () => {
    await until('pongs', () => server.pongs >= 2)
  })

  it('normalizes trades, funding, liquidations, open interest and long/short from stream and REST', async () => {
    server.publish(
      '!markPrice@arr@1s',
      PERPS.map((s) => markPriceUpdate(s, Date.now(), '0.00010000', T0 + 3_600_000))
    )
    server.trade('BTCUSDT', Date.now(), '97001.5', '0.5', false)
    server.publish('!forceOrder@arr', forceOrderEvent('ETHUSDT', 'SELL', Date.now(), '3390.10', '2.000'))
    await until('every kind', () => {
      const kinds = new Set(feed.records.map((r) => r.kind))
      return ['trade', 'funding', 'liquidation', 'open_interest', 'long_short'].every((k) => kinds.has(k as never))
    })
    const oi = feed.records.find((r) => r.kind === 'open_interest' && r.symbol === 'BTCUSDT')
    expect(oi).toMatchObject({ oi_base: 1000, oi_usd: 1000 * Number(MARK['BTCUSDT']) })
    const solv = feed.records.find((r) => r.kind === 'funding' && r.symbol === 'SOLVUSDT')
    expect(solv).toMatchObject({ interval_hours: 1, funding_rate: 0.0001 })
    expect(feed.chunks.map((c) => c.table)).toEqual(expect.arrayContaining(['trades', 'funding', 'liquidations']))
  })

  it('after a disconnect mid-stream it reconnects, resubscribes and backfills the missed trades from REST', async () => {
    const before = server.connections
    server.trade('ETHUSDT', Date.now(), '3400.10', '1.0', true) // id 1000
    server.trade('ETHUSDT', Date.now(), '3400.20', '1.0', true) // 1001
    await until('first ETH trades', () => tradeIds(feed.records, 'ETHUSDT').length === 2)
    server.dropAll()
    // trades made while nobody is connected: ids 1002..1004 never reach the socket
    for (let i = 0; i < 3; i++) server.trade('ETHUSDT', Date.now(), '3401.00', '0.3', false, true)
    await until('reconnected', () => server.connections >= before + 2 && source.status().connected)
    await server.waitSubscribed(STREAMS)
    server.trade('ETHUSDT', Date.now(), '3402.00', '0.1', false) // 1005: reveals the gap 1002..1004
    await until('gap filled', () => source.status().gaps_filled === 1)
    await until('all ETH trades', () => tradeIds(feed.records, 'ETHUSDT').length === 6)
    expect([...tradeIds(feed.records, 'ETHUSDT')].sort()).toEqual(['1000', '1001', '1002', '1003', '1004', '1005'])
    expect(source.status()).toMatchObject({ gaps_found: 1, gaps_filled: 1, gaps_unfilled: 0 })
    expect(source.status().reconnects).toBeGreaterThanOrEqual(2)
  })

  it('fills an id gap in a running stream from REST without duplicates', async () => {
    // counters are the feed's since its start: compare with their values before this test (runs alone too)
    const s0 = source.status()
    const rest0 = server.requests.get('/fapi/v1/aggTrades') ?? 0
    server.trade('SOLVUSDT', Date.now(), '0.0512', '100', false) // 1000
    server.trade('SOLVUSDT', Date.now(), '0.0513', '100', false, true) // 1001 lost
    server.trade('SOLVUSDT', Date.now(), '0.0513', '200', true, true) // 1002 lost
    server.trade('SOLVUSDT', Date.now(), '0.0514', '100', false) // 1003
    server.trade('SOLVUSDT', Date.now(), '0.0514', '100', false) // 1004
    await until('SOLV filled', () => tradeIds(feed.records, 'SOLVUSDT').length === 5)
    expect(tradeIds(feed.records, 'SOLVUSDT').sort()).toEqual(['1000', '1001', '1002', '1003', '1004'])
    const s1 = source.status()
    expect(s1.gaps_found! - s0.gaps_found!).toBe(1)
    expect(s1.gaps_filled! - s0.gaps_filled!).toBe(1)
    expect(server.requests.get('/fapi/v1/aggTrades')! - rest0).toBe(1)
  })

  it('counts malformed and unknown messages, skips them and keeps going', async () => {
    const s0 = source.status()
    const btc0 = tradeIds(feed.records, 'BTCUSDT').length
    server.sendRaw('{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade"') // cut short: not JSON
    server.sendRaw('not json at all')
    server.publish('btcusdt@aggTrade', { e: 'aggTrade', s: 'BTCUSDT', a: 'seven', p: '1', q: '1', T: 1, m: true })
    server.sendRaw(JSON.stringify({ stream: 'btcusdt@depth', data: { e: 'depthUpdate', s: 'BTCUSDT' } }))
    server.trade('BTCUSDT', Date.now(), '97100.0', '0.2', true)
    await until('trade after junk', () => tradeIds(feed.records, 'BTCUSDT').length === btc0 + 1)
    const s1 = source.status()
    // raw junk reaches both connections
    expect(s1.parse_errors! - s0.parse_errors!).toBe(2 * 2 + 1)
    expect(s1.unknown_messages! - s0.unknown_messages!).toBe(2)
    expect(s1.connected).toBe(true)
  })

  it('reopens a connection that goes silent (stale feed)', async () => {
    await silenceUntilReopened(server, source, STREAMS)
    const id = server.trade('BTCUSDT', Date.now(), '97200.0', '0.1', false)
    await until('trade after reopen', () => tradeIds(feed.records, 'BTCUSDT').includes(String(id)))
  })
})
