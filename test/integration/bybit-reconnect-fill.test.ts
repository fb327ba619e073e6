import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { BybitSource } from '../../ingest/sources/bybit.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BybitTestServer } from '../helpers/venues/bybit-server.js'
import { PERPS, tradeRow } from '../helpers/venues/bybit-fixtures.js'
import { drainSource, tradeIds } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

const rec = tmpDir()
let server: BybitTestServer
let feed: ReturnType<typeof drainSource>
let source: BybitSource

const TOPICS = PERPS.flatMap((s) => [`publicTrade.${s}`, `tickers.${s}`, `allLiquidation.${s}`])
/** trade times: distinct and rising, a minute ago */
const T0 = Date.now() - 60_000
let tick = 0
const trade = (symbol: string, id: string, qty = '0.01', price = '97000.5'): object =>
  tradeRow(symbol, T0 + tick++, tick % 2 ? 'Buy' : 'Sell', qty, price, id)

const status = (): ReturnType<BybitSource['status']> => source.status()
const gaps = (): [number, number, number] => {
  const s = status()
  return [s.gaps_found!, s.gaps_filled!, s.gaps_unfilled!]
}
const recentTradeRequests = (): string[] => server.requestLog.filter((p) => p.startsWith('/v5/market/recent-trade'))
const sortedIds = (symbol: string): string[] => tradeIds(feed.records, symbol).sort()

/** Waits until every connection the source had reopened (`count` more reconnects) and subscribed again. */
async function reconnected(before: number, count: number): Promise<void> {
  await until('reconnected', () => status().reconnects! >= before + count && status().connected!)
  await server.waitSubscribed(TOPICS)
}

beforeAll(async () => {
  server = await new BybitTestServer().start()
  for (const s of PERPS) server.setTicker(s)
  source = new BybitSource({
    wsUrl: server.wsUrl,
    restUrl: server.restUrl,
    symbols: [],
    log: silentLogger(),
    recordDir: rec.dir,
    // 5 topics a connection: BTCUSDT and ETHUSDT trades on the first, ORDIUSDT and 1000PEPEUSDT on the second
    tuning: { topicsPerConnection: 5, subscribeIntervalMs: 5, backoff: { baseMs: 20, maxMs: 100 } }
  })
  feed = drainSource(source)
  await server.waitSubscribed(TOPICS)
})

afterAll(async () => {
  await feed.stop()
  await server.stop()
  rec.cleanup()
})

describe('Bybit: trades missed while a connection was down', () => {
  it('fetches recent trades on reopen and stores exactly the missed ones, once', async () => {
    server.trades('BTCUSDT', [trade('BTCUSDT', 'b-1'), trade('BTCUSDT', 'b-2')])
    server.trades('ETHUSDT', [trade('ETHUSDT', 'e-1', '1.5', '3400.5')])
    server.trades('1000PEPEUSDT', [trade('1000PEPEUSDT', 'p-1', '1000', '0.0201')])
    await until('live trades', () => feed.records.filter((r) => r.kind === 'trade').length === 4)
    expect(gaps()).toEqual([0, 0, 0]) // first opens are not reconnects
    const s0 = status()
    server.dropAll()
    // while nobody is connected the market trades: only the REST history has these
    server.trades('BTCUSDT', [trade('BTCUSDT', 'b-3'), trade('BTCUSDT', 'b-4'), trade('BTCUSDT', 'b-5')], false)
    server.trades('ETHUSDT', [trade('ETHUSDT', 'e-2', '0.5', '3401.0')], false)
    server.trades('1000PEPEUSDT', [trade('1000PEPEUSDT', 'p-2', '2000', '0.0202')], false)
    await reconnected(s0.reconnects!, 3)
    server.trades('BTCUSDT', [trade('BTCUSDT', 'b-6')]) // live again
    await until('missed trades recovered', () => feed.records.filter((r) => r.kind === 'trade').length === 10)
    expect(sortedIds('BTCUSDT')).toEqual(['b-1', 'b-2', 'b-3', 'b-4', 'b-5', 'b-6'])
    expect(sortedIds('ETHUSDT')).toEqual(['e-1', 'e-2'])
    expect(sortedIds('1000PEPEUSDT')).toEqual(['p-1', 'p-2'])
    // three markets had traded (ORDIUSDT never did: not checked), every page reached back
    expect(gaps()).toEqual([3, 5, 0])
    expect(recentTradeRequests().sort()).toEqual([
      '/v5/market/recent-trade?category=linear&symbol=1000PEPEUSDT&limit=1000',
      '/v5/market/recent-trade?category=linear&symbol=BTCUSDT&limit=1000',
      '/v5/market/recent-trade?category=linear&symbol=ETHUSDT&limit=1000'
    ])
    // a recovered trade is normalized like a socket trade (quoted per 1000 PEPE: sizes x 1000, prices / 1000)
    const p2 = feed.records.find((r) => r.kind === 'trade' && (r as { trade_id: string }).trade_id === 'p-2')
    expect(p2).toMatchObject({ exchange: 'bybit', symbol: '1000PEPEUSDT', base: 'PEPE', qty: 2_000_000 })
    expect((p2 as { price: number }).price).toBeCloseTo(0.0000202, 12)
    expect(feed.chunks.some((c) => c.table === 'trades')).toBe(true)
  })

  it('counts a page that does not reach back to the last trade before the drop as unfilled', async () => {
    server.recentTradesCap = 2
    const [found, filled, unfilled] = gaps()
    const s0 = status()
    const asked = recentTradeRequests().length
    server.dropAll()
    // three trades missed, the venue's page holds only the newest two
    server.trades('BTCUSDT', [trade('BTCUSDT', 'b-7'), trade('BTCUSDT', 'b-8'), trade('BTCUSDT', 'b-9')], false)
    await reconnected(s0.reconnects!, 3)
    // every market that traded is asked for its page (BTC's records can arrive before the others are asked)
    await until(
      'pages served',
      () =>
        status().gaps_unfilled === unfilled + 1 &&
        sortedIds('BTCUSDT').length === 8 &&
        recentTradeRequests().length === asked + 3
    )
    server.recentTradesCap = 1_000
    expect(sortedIds('BTCUSDT')).toEqual(['b-1', 'b-2', 'b-3', 'b-4', 'b-5', 'b-6', 'b-8', 'b-9'])
    // ETHUSDT and 1000PEPEUSDT missed nothing: their pages hold the last trade seen
    expect(gaps()).toEqual([found + 3, filled + 2, unfilled + 1])
  })

  it('checks only the markets of the reopened connection that have traded', async () => {
    const [found, filled, unfilled] = gaps()
    const s0 = status()
    const asked = recentTradeRequests().length
    expect(server.dropSubscribersOf('publicTrade.1000PEPEUSDT')).toBe(1)
    server.trades('1000PEPEUSDT', [trade('1000PEPEUSDT', 'p-3', '1000', '0.0203')], false)
    await reconnected(s0.reconnects!, 1)
    await until('page served', () => sortedIds('1000PEPEUSDT').length === 3)
    expect(recentTradeRequests().slice(asked)).toEqual([
      '/v5/market/recent-trade?category=linear&symbol=1000PEPEUSDT&limit=1000'
    ])
    expect(gaps()).toEqual([found + 1, filled + 1, unfilled])
    expect(sortedIds('1000PEPEUSDT')).toEqual(['p-1', 'p-2', 'p-3'])
  })

  it('a replay of the recording yields the same records, recovered trades included', async () => {
    await feed.stop()
    const live: NormalizedRecord[] = feed.records
    const liveFound = status().gaps_found
    const replay = new ReplaySource({ path: rec.dir, speed: 0, log: silentLogger() })
    const replayed = drainSource(replay)
    await replayed.done
    expect(replayed.records).toEqual(live)
    expect(replay.status()).toMatchObject({ phase: 'done', gaps_found: liveFound })
  })
})
