/**
 * The Bitget source against a local protocol server speaking Bitget's unified (v3) wire format
 * (test/helpers/venues/bitget-server.ts): discovery, paced subscriptions over several connections, the
 * text ping/pong keepalive, every record kind, a refused subscription, new listings on rediscovery,
 * reconnects with the missed trades fetched, junk, and stale lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { BitgetSource } from '../../ingest/sources/bitget.js'
import { BitgetTestServer } from '../helpers/venues/bitget-server.js'
import { PERPS, instrument, liquidationRow, push } from '../helpers/venues/bitget-fixtures.js'
import { drainSource, tradeIds } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

let server: BitgetTestServer
let feed: ReturnType<typeof drainSource>
let source: BitgetSource

/** DOGEUSDT is listed over REST but refused by the socket (a subscribe error). */
const FOLLOWED = PERPS.filter((s) => s !== 'DOGEUSDT')
const KEYS = ['liquidation|usdt-futures', ...FOLLOWED.flatMap((s) => [`publicTrade|${s}`, `ticker|${s}`])]

beforeAll(async () => {
  server = await new BitgetTestServer({ noPingCloseMs: 1_500 }).start()
  server.refused.add('DOGEUSDT')
  for (const s of PERPS) {
    server.setTicker(s, s === '1000SATSUSDT' ? { markPrice: '0.0003120', openInterest: '500000' } : {})
    server.longShort.set(s, ['0.6', '0.4'])
  }
  source = new BitgetSource({
    wsUrl: server.wsUrl,
    restUrl: server.restUrl,
    symbols: [],
    log: silentLogger(),
    // small connections so the markets span three sockets; fast pings, reconnects, stale detection, rediscovery
    tuning: {
      argsPerConnection: 4,
      subscribeBatch: 3,
      subscribeIntervalMs: 5,
      pingMs: 100,
      backoff: { baseMs: 20, maxMs: 100 },
      staleMs: 2_000,
      discoveryEveryMs: 300,
      longShortPerMinute: 6_000
    }
  })
  feed = drainSource(source)
  await server.waitSubscribed(KEYS)
})

afterAll(async () => {
  await feed.stop()
  await server.stop()
})

describe('Bitget feed against a local protocol server', () => {
  it('discovers the trading USDT perpetuals and subscribes in paced messages; a refused market is a venue error', async () => {
    expect(server.requestLog[0]).toBe('/api/v3/market/instruments?category=USDT-FUTURES')
    expect(server.subscribed()).toEqual(new Set(KEYS))
    // 9 args (the liquidation topic + 2 per market), 4 per connection
    expect(server.connections).toBe(3)
    expect(server.maxArgs).toBe(3)
    await until('subscribe errors counted', () => source.status().venue_errors === 2)
    expect(server.subscribeErrors).toBe(2)
    expect(source.status()).toMatchObject({ name: 'bitget', connected: true, markets: 4, connections: 3 })
  })

  it('sends the text ping; pongs are protocol chatter and the venue never closes a line for want of pings', async () => {
    const before = server.pings
    await until('pings', () => server.pings >= before + 9)
    expect(source.status()).toMatchObject({ unknown_messages: 0, parse_errors: 0 })
    expect(server.noPingClosed).toBe(0)
  })

  it('normalizes trades, funding, open interest, liquidations and long/short', async () => {
    const now = Date.now()
    server.trade('BTCUSDT', now, 'buy', '0.5', '97001.5')
    server.trade('1000SATSUSDT', now, 'sell', '3', '0.0003121')
    server.publish(push('liquidation', null, [liquidationRow('ETHUSDT', now, 'buy', '2.00', '3390.10')], now))
    await until('every kind', () => {
      const kinds = new Set(feed.records.map((r) => r.kind))
      return ['trade', 'funding', 'liquidation', 'open_interest', 'long_short'].every((k) => kinds.has(k as never))
    })
    await until('both trades', () => feed.records.filter((r) => r.kind === 'trade').length === 2)
    await until('long/short of the markets', () => feed.records.filter((r) => r.kind === 'long_short').length >= 3)
    const trades = feed.records.filter((r) => r.kind === 'trade').sort((a, b) => a.symbol.localeCompare(b.symbol))
    expect(trades.map((t) => [t.symbol, t.base, (t as { qty: number }).qty])).toEqual([
      ['1000SATSUSDT', 'SATS', 3000],
      ['BTCUSDT', 'BTC', 0.5]
    ])
    const sats = feed.records.find((r) => r.kind === 'funding' && r.symbol === '1000SATSUSDT')
    expect(sats).toMatchObject({ interval_hours: 1, funding_rate: 0.0001 })
    expect((sats as { mark_price: number }).mark_price).toBeCloseTo(0.000000312, 15)
    expect(feed.records.find((r) => r.kind === 'open_interest' && r.symbol === 'BTCUSDT')).toMatchObject({
      oi_base: 41234.5678,
      oi_usd: 41234.5678 * 97000.1
    })
    expect(feed.records.find((r) => r.kind === 'liquidation')).toMatchObject({
      symbol: 'ETHUSDT',
      side: 'sell',
      qty: 2
    })
    expect(feed.records.find((r) => r.kind === 'long_short')).toMatchObject({ long_short_ratio: 1.5 })
    expect(feed.chunks.map((c) => c.table)).toEqual(
      expect.arrayContaining(['trades', 'funding', 'liquidations', 'open_interest', 'long_short'])
    )
  })

  it('merges ticker updates: an update with only the mark price keeps open interest and funding', async () => {
    server.tickerUpdate('BTCUSDT', { markPrice: '97500.0' })
    await until('update applied', () => source.normalizer.tickerOf('BTCUSDT')?.markPrice === 97500)
    expect(source.normalizer.tickerOf('BTCUSDT')).toMatchObject({ openInterest: 41234.5678, fundingRate: 0.0001 })
  })

  it('subscribes a new listing found by rediscovery', async () => {
    server.instruments.push(instrument('WLDUSDT', 'WLD'))
    server.setTicker('WLDUSDT', { markPrice: '2.1' })
    await server.waitSubscribed(['publicTrade|WLDUSDT', 'ticker|WLDUSDT'])
    await until('WLD funding', () => feed.records.some((r) => r.kind === 'funding' && r.symbol === 'WLDUSDT'))
    expect(source.status().markets).toBe(5)
  })

  it('after a disconnect it reconnects, resubscribes and fetches the trades missed meanwhile', async () => {
    const s0 = source.status()
    server.dropAll()
    // while nobody listens BTCUSDT trades: only the fills page has it
    const missed = server.trade('BTCUSDT', Date.now(), 'sell', '0.25', '97002.0', false)
    await until('reconnected', () => source.status().reconnects! >= s0.reconnects! + 3 && source.status().connected)
    await server.waitSubscribed(KEYS)
    await until('missed trade', () => tradeIds(feed.records, 'BTCUSDT').includes(missed))
    expect(server.requestLog.filter((p) => p.startsWith('/api/v3/market/fills'))).toContain(
      '/api/v3/market/fills?category=USDT-FUTURES&symbol=BTCUSDT&limit=100'
    )
    // the trade snapshot on resubscribe repeats trades already stored: none twice
    const ids = tradeIds(feed.records, 'BTCUSDT')
    expect(new Set(ids).size).toBe(ids.length)
    expect(source.status()).toMatchObject({ connected: true, gaps_unfilled: 0, parse_errors: 0 })
  })

  it('counts malformed and unknown messages, skips them and keeps going', async () => {
    const s0 = source.status()
    const open = server.clients.size
    server.sendRaw('{"action":"update","arg":{"topic":"publicTrade"') // cut short: not JSON
    server.sendRaw(JSON.stringify(push('books5', 'BTCUSDT', [], 1)))
    const now = Date.now()
    const id = server.trade('BTCUSDT', now, 'buy', '0.1', '97100.0')
    await until('trade after junk', () => tradeIds(feed.records, 'BTCUSDT').includes(id))
    // the junk went out on every connection, the trade on one: frames of different sockets are not ordered
    await until('junk counted', () => source.status().parse_errors! - s0.parse_errors! === open)
    await until('unknown counted', () => source.status().unknown_messages! - s0.unknown_messages! === open)
    const s1 = source.status()
    expect(s1.connected).toBe(true)
  })

  it('reopens connections that go silent (stale feed)', async () => {
    const s0 = source.status()
    const silent = new Set(server.clients)
    server.pauseAll()
    await until('every connection stale', () => source.status().stale! >= s0.stale! + s0.connections!, 8_000)
    server.resumeAll()
    await until('reopened', () => source.status().connected && [...silent].every((c) => !server.clients.has(c)), 8_000)
    await server.waitSubscribed(KEYS)
    const id = server.trade('ETHUSDT', Date.now(), 'buy', '1', '3401.0')
    await until('trade after reopen', () => tradeIds(feed.records, 'ETHUSDT').includes(id))
  })
})
