import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { OkxSource } from '../../ingest/sources/okx.js'
import { OkxTestServer } from '../helpers/venues/okx-server.js'
import {
  SWAPS,
  fundingRow,
  instrument,
  liquidationRow,
  markPriceRow,
  openInterestRow
} from '../helpers/venues/okx-fixtures.js'
import { drainSource, tradeIds } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'
import { silenceUntilReopened } from '../helpers/venues/stale-reopen.js'

let server: OkxTestServer
let feed: ReturnType<typeof drainSource>
let source: OkxSource

const CHANNELS = ['trades', 'funding-rate', 'open-interest', 'mark-price']
const KEYS = ['liquidation-orders|SWAP', ...SWAPS.flatMap((s) => CHANNELS.map((c) => `${c}|${s}`))]

beforeAll(async () => {
  // the server drops a connection it has sent nothing on for 600 ms (OKX: 30 s); the client pings after 150 ms
  server = await new OkxTestServer({ idleCloseMs: 600 }).start()
  for (const ccy of ['BTC', 'ETH', 'DOGE', 'PEPE']) server.longShort.set(ccy, '1.5')
  source = new OkxSource({
    wsUrl: server.wsUrl,
    restUrl: server.restUrl,
    symbols: [],
    log: silentLogger(),
    // small connections so the 17 args span two sockets; fast keepalive, reconnects and stale detection
    tuning: {
      argsPerConnection: 9,
      subscribeBatch: 4,
      subscribeIntervalMs: 5,
      pingAfterMs: 150,
      staleMs: 1_500,
      statisticsPerMinute: 600,
      discoveryEveryMs: 300,
      backoff: { baseMs: 20, maxMs: 100 }
    }
  })
  feed = drainSource(source)
  await server.waitSubscribed(KEYS)
})

afterAll(async () => {
  await feed.stop()
  await server.stop()
})

describe('OKX feed against a local protocol server', () => {
  it('discovers the live USDT swaps and subscribes 4 channels each plus all-swap liquidations, in small messages', () => {
    expect(server.subscribed()).toEqual(new Set(KEYS))
    expect(server.connections).toBe(2) // 17 args, 9 per connection
    expect(server.subscribeMessages).toBe(3 + 2) // 9 args in batches of 4, then 8
    expect(source.status()).toMatchObject({ name: 'okx', connected: true, markets: 4, connections: 2, venue_errors: 0 })
  })

  it('polls long/short only for coins with statistics (support-coin), once per coin', async () => {
    await until(
      'long/short polled',
      () => server.requests.get('/api/v5/rubik/stat/contracts/long-short-account-ratio') === 3
    )
    const asked = server.requestLog.filter((p) => p.includes('long-short-account-ratio'))
    expect(asked).toEqual([
      '/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=BTC&period=5m',
      '/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=ETH&period=5m',
      '/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=DOGE&period=5m'
    ])
    await until('long/short records', () => feed.records.filter((r) => r.kind === 'long_short').length === 3)
    expect(feed.records.find((r) => r.kind === 'long_short' && r.symbol === 'BTC-USDT-SWAP')).toMatchObject({
      base: 'BTC',
      long_short_ratio: 1.5
    })
  })

  it('normalizes trades, funding, open interest and liquidations with contracts converted to coins', async () => {
    const now = Date.now()
    for (const s of SWAPS) server.publish('mark-price', s, [markPriceRow(s, now)])
    server.publish('funding-rate', 'DOGE-USDT-SWAP', [fundingRow('DOGE-USDT-SWAP', now, '-0.00025', now + 1_000, 1)])
    server.publish('open-interest', 'ETH-USDT-SWAP', [openInterestRow('ETH-USDT-SWAP', '2500.5', now, false)])
    server.trade('BTC-USDT-SWAP', now, '97001.5', '50', 'buy')
    server.trade('PEPE-USDT-SWAP', now, '0.0000201', '3', 'sell')
    server.publish('liquidation-orders', null, [
      liquidationRow('ETH-USDT-SWAP', [{ side: 'sell', bkPx: '3390.1', sz: '20', ts: now }]),
      liquidationRow('BTC-USD-SWAP', [{ side: 'buy', bkPx: '97500', sz: '300', ts: now }])
    ])
    await until('every kind', () => {
      const kinds = new Set(feed.records.map((r) => r.kind))
      return ['trade', 'funding', 'liquidation', 'open_interest'].every((k) => kinds.has(k as never))
    })
    await until('both trades', () => feed.records.filter((r) => r.kind === 'trade').length === 2)
    // the two swaps are on different connections: order between them is not defined
    const trades = feed.records.filter((r) => r.kind === 'trade').sort((a, b) => a.symbol.localeCompare(b.symbol))
    expect(trades.map((t) => [t.symbol, (t as { qty: number }).qty])).toEqual([
      ['BTC-USDT-SWAP', 0.5],
      ['PEPE-USDT-SWAP', 30_000_000]
    ])
    expect(feed.records.find((r) => r.kind === 'open_interest')).toEqual({
      kind: 'open_interest',
      ts: now,
      exchange: 'okx',
      symbol: 'ETH-USDT-SWAP',
      base: 'ETH',
      oi_base: 250.05,
      oi_usd: 250.05 * 3400.55
    })
    expect(feed.records.find((r) => r.kind === 'funding')).toMatchObject({
      symbol: 'DOGE-USDT-SWAP',
      funding_rate: -0.00025,
      interval_hours: 1,
      mark_price: 0.38211
    })
    expect(feed.records.filter((r) => r.kind === 'liquidation')).toEqual([
      {
        kind: 'liquidation',
        ts: now,
        exchange: 'okx',
        symbol: 'ETH-USDT-SWAP',
        base: 'ETH',
        side: 'sell',
        price: 3390.1,
        qty: 2
      }
    ])
    expect(feed.chunks.map((c) => c.table)).toEqual(expect.arrayContaining(['trades', 'funding', 'liquidations']))
  })

  it('keeps a quiet connection alive with text pings; the pong is protocol chatter, not a parse error', async () => {
    const s0 = source.status()
    const pings = server.pings
    // ~6 pings per connection: longer than the server's idle limit, so a connection that did not ping would be closed
    await until('pings on both connections', () => server.pings >= pings + 12)
    const s1 = source.status()
    expect(server.idleClosed).toBe(0)
    expect(s1.reconnects).toBe(s0.reconnects)
    expect(s1.parse_errors).toBe(0)
    expect(s1.unknown_messages).toBe(0)
  })

  it('after a disconnect mid-stream it reconnects, resubscribes every channel and keeps streaming', async () => {
    const before = server.connections
    const messages = server.subscribeMessages
    server.trade('ETH-USDT-SWAP', Date.now(), '3400.1', '10', 'sell')
    await until('first ETH trade', () => tradeIds(feed.records, 'ETH-USDT-SWAP').length === 1)
    server.dropAll()
    await until('reconnected', () => server.connections >= before + 2 && source.status().connected)
    await server.waitSubscribed(KEYS)
    expect(server.subscribeMessages).toBe(messages + 5)
    const id = server.trade('ETH-USDT-SWAP', Date.now(), '3401.0', '7', 'buy')
    await until('ETH trade after reconnect', () => tradeIds(feed.records, 'ETH-USDT-SWAP').includes(id))
    expect(
      feed.records
        .filter((r) => r.kind === 'trade' && r.symbol === 'ETH-USDT-SWAP')
        .map((r) => (r as { qty: number }).qty)
    ).toEqual([1, 0.7])
    expect(source.status().reconnects).toBeGreaterThanOrEqual(2)
  })

  it('counts malformed, unknown and venue error messages, skips them and keeps going', async () => {
    const s0 = source.status()
    server.sendRaw('{"arg":{"channel":"trades","instId":"BTC-USDT-SWAP"},"data":[{"instId"') // cut short
    server.sendRaw('not json at all')
    server.publish('trades', 'BTC-USDT-SWAP', [
      { instId: 'BTC-USDT-SWAP', tradeId: '9', px: 'abc', sz: '1', side: 'buy', ts: '1' }
    ])
    server.sendRaw(
      JSON.stringify({ arg: { channel: 'books5', instId: 'BTC-USDT-SWAP' }, data: [{ asks: [], bids: [] }] })
    )
    server.sendRaw(
      JSON.stringify({
        event: 'error',
        code: '60018',
        msg: "Wrong URL or channel:tickers, instId:X doesn't exist.",
        connId: 'x'
      })
    )
    const id = server.trade('BTC-USDT-SWAP', Date.now(), '97100.0', '20', 'sell')
    await until('trade after junk', () => tradeIds(feed.records, 'BTC-USDT-SWAP').includes(id))
    await until('errors counted', () => source.status().venue_errors! - s0.venue_errors! === 2)
    const s1 = source.status()
    // raw junk reaches both connections; the bad trade only the subscribed one
    expect(s1.parse_errors! - s0.parse_errors!).toBe(2 * 2 + 1)
    expect(s1.unknown_messages! - s0.unknown_messages!).toBe(2)
    expect(s1.connected).toBe(true)
  })

  it('reopens a connection that goes silent (no data, no pongs: stale feed)', async () => {
    await silenceUntilReopened(server, source, KEYS, { closedWhilePaused: true })
    const id = server.trade('ETH-USDT-SWAP', Date.now(), '3410.0', '5', 'buy')
    await until('trade after reopen', () => tradeIds(feed.records, 'ETH-USDT-SWAP').includes(id))
  })

  it('rediscovery subscribes a new listing and maps its trades with its own contract value', async () => {
    server.instruments.push(instrument('SOL-USDT-SWAP', '1', { tickSz: '0.01' }))
    const sol = ['trades', 'funding-rate', 'open-interest', 'mark-price'].map((c) => `${c}|SOL-USDT-SWAP`)
    await server.waitSubscribed(sol)
    expect(source.status()).toMatchObject({ markets: 5, connections: 3 }) // 1 more arg on the second, 3 on a new one
    const id = server.trade('SOL-USDT-SWAP', Date.now(), '242.15', '12.5', 'buy')
    await until('SOL trade', () => tradeIds(feed.records, 'SOL-USDT-SWAP').includes(id))
    expect(feed.records.find((r) => r.kind === 'trade' && r.symbol === 'SOL-USDT-SWAP')).toMatchObject({
      base: 'SOL',
      qty: 12.5,
      price: 242.15
    })
  })

  it('a market delisted and listed again is not subscribed a second time', async () => {
    const dups = server.duplicateSubscribes
    const sol = server.instruments.findIndex((i) => i['instId'] === 'SOL-USDT-SWAP')
    const [listing] = server.instruments.splice(sol, 1)
    await until('SOL delisted', () => source.status().markets === 4)
    server.instruments.push(listing!)
    await until('SOL listed again', () => source.status().markets === 5)
    const polls = server.requests.get('/api/v5/public/instruments') ?? 0
    await until('two more rediscoveries', () => (server.requests.get('/api/v5/public/instruments') ?? 0) >= polls + 2)
    expect(server.holders('trades|SOL-USDT-SWAP')).toBe(1)
    expect(server.holders('funding-rate|SOL-USDT-SWAP')).toBe(1)
    expect(server.duplicateSubscribes).toBe(dups)
  })
})
