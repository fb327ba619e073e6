import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { OkxSource } from '../../ingest/sources/okx.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { OkxTestServer } from '../helpers/venues/okx-server.js'
import { SWAPS } from '../helpers/venues/okx-fixtures.js'
import { drainSource, tradeIds } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

const rec = tmpDir()
let server: OkxTestServer
let feed: ReturnType<typeof drainSource>
let source: OkxSource

const CHANNELS = ['trades', 'funding-rate', 'open-interest', 'mark-price']
const KEYS = ['liquidation-orders|SWAP', ...SWAPS.flatMap((s) => CHANNELS.map((c) => `${c}|${s}`))]
/** trade times: distinct and rising, a minute ago */
const T0 = Date.now() - 60_000
let tick = 0
/** the next trade of `instId` (sz in contracts); live: also pushed on the socket. Returns its id. */
const trade = (instId: string, live: boolean, sz = '10'): string =>
  server.trade(instId, T0 + tick++, instId === 'PEPE-USDT-SWAP' ? '0.0000201' : '97001.5', sz, 'buy', live)

const status = (): ReturnType<OkxSource['status']> => source.status()
const gaps = (): [number, number, number] => {
  const s = status()
  return [s.gaps_found!, s.gaps_filled!, s.gaps_unfilled!]
}
const tradeRequests = (): string[] => server.requestLog.filter((p) => p.startsWith('/api/v5/market/trades'))
const sortedIds = (instId: string): string[] => tradeIds(feed.records, instId).sort()
const tradeCount = (): number => feed.records.filter((r) => r.kind === 'trade').length

async function reconnected(before: number, count: number): Promise<void> {
  await until('reconnected', () => status().reconnects! >= before + count && status().connected!)
  await server.waitSubscribed(KEYS)
}

beforeAll(async () => {
  server = await new OkxTestServer().start()
  source = new OkxSource({
    wsUrl: server.wsUrl,
    restUrl: server.restUrl,
    symbols: [],
    log: silentLogger(),
    recordDir: rec.dir,
    // 9 args a connection: BTC and ETH trades on the first, DOGE and PEPE on the second
    tuning: { argsPerConnection: 9, subscribeIntervalMs: 5, backoff: { baseMs: 20, maxMs: 100 } }
  })
  feed = drainSource(source)
  await server.waitSubscribed(KEYS)
})

afterAll(async () => {
  await feed.stop()
  await server.stop()
  rec.cleanup()
})

describe('OKX: trades missed while a connection was down', () => {
  const btc: string[] = []
  const eth: string[] = []
  const pepe: string[] = []

  it('fetches recent trades on reopen and stores exactly the missed ones, once', async () => {
    btc.push(trade('BTC-USDT-SWAP', true), trade('BTC-USDT-SWAP', true))
    eth.push(trade('ETH-USDT-SWAP', true))
    pepe.push(trade('PEPE-USDT-SWAP', true, '3'))
    await until('live trades', () => tradeCount() === 4)
    expect(gaps()).toEqual([0, 0, 0]) // first opens are not reconnects
    const s0 = status()
    server.dropAll()
    // while nobody is connected the market trades: only the REST history has these
    btc.push(trade('BTC-USDT-SWAP', false), trade('BTC-USDT-SWAP', false), trade('BTC-USDT-SWAP', false))
    eth.push(trade('ETH-USDT-SWAP', false))
    const missedPepe = trade('PEPE-USDT-SWAP', false, '2')
    pepe.push(missedPepe)
    await reconnected(s0.reconnects!, 2)
    btc.push(trade('BTC-USDT-SWAP', true)) // live again
    await until('missed trades recovered', () => tradeCount() === 10)
    expect(sortedIds('BTC-USDT-SWAP')).toEqual([...btc].sort())
    expect(sortedIds('ETH-USDT-SWAP')).toEqual(eth)
    expect(sortedIds('PEPE-USDT-SWAP')).toEqual(pepe)
    // three instruments had traded (DOGE never did: not checked), every page reached back
    expect(gaps()).toEqual([3, 5, 0])
    expect(tradeRequests().sort()).toEqual([
      '/api/v5/market/trades?instId=BTC-USDT-SWAP&limit=500',
      '/api/v5/market/trades?instId=ETH-USDT-SWAP&limit=500',
      '/api/v5/market/trades?instId=PEPE-USDT-SWAP&limit=500'
    ])
    // a recovered trade is normalized like a socket trade: 2 contracts of 10,000,000 PEPE
    const recovered = feed.records.find(
      (r) => r.kind === 'trade' && r.symbol === 'PEPE-USDT-SWAP' && (r as { trade_id: string }).trade_id === missedPepe
    )
    expect(recovered).toMatchObject({ exchange: 'okx', base: 'PEPE', qty: 20_000_000, price: 0.0000201, side: 'buy' })
  })

  it('counts a page that does not reach back to the last trade before the drop as unfilled', async () => {
    server.recentTradesCap = 2
    const [found, filled, unfilled] = gaps()
    const s0 = status()
    const asked = tradeRequests().length
    server.dropAll()
    // three trades missed, the venue's page holds only the newest two
    const lost = trade('BTC-USDT-SWAP', false)
    btc.push(trade('BTC-USDT-SWAP', false), trade('BTC-USDT-SWAP', false))
    await reconnected(s0.reconnects!, 2)
    // every instrument that traded is asked for its page (BTC's records can arrive before the others are asked)
    await until(
      'pages served',
      () =>
        status().gaps_unfilled === unfilled + 1 &&
        sortedIds('BTC-USDT-SWAP').length === 8 &&
        tradeRequests().length === asked + 3
    )
    server.recentTradesCap = 500
    expect(sortedIds('BTC-USDT-SWAP')).toEqual([...btc].sort())
    expect(sortedIds('BTC-USDT-SWAP')).not.toContain(lost)
    // ETH and PEPE missed nothing: their pages hold the last trade seen
    expect(gaps()).toEqual([found + 3, filled + 2, unfilled + 1])
  })

  it('checks only the instruments of the reopened connection that have traded', async () => {
    const [found, filled, unfilled] = gaps()
    const s0 = status()
    const asked = tradeRequests().length
    expect(server.dropSubscribersOf('trades|PEPE-USDT-SWAP')).toBe(1)
    pepe.push(trade('PEPE-USDT-SWAP', false))
    await reconnected(s0.reconnects!, 1)
    await until('page served', () => sortedIds('PEPE-USDT-SWAP').length === 3)
    expect(tradeRequests().slice(asked)).toEqual(['/api/v5/market/trades?instId=PEPE-USDT-SWAP&limit=500'])
    expect(gaps()).toEqual([found + 1, filled + 1, unfilled])
    expect(sortedIds('PEPE-USDT-SWAP')).toEqual([...pepe].sort())
  })

  it('a replay of the recording yields the same records, recovered trades included', async () => {
    await feed.stop()
    const live = feed.records
    const liveFound = status().gaps_found
    const replay = new ReplaySource({ path: rec.dir, speed: 0, log: silentLogger() })
    const replayed = drainSource(replay)
    await replayed.done
    expect(replayed.records).toEqual(live)
    expect(replay.status()).toMatchObject({ phase: 'done', gaps_found: liveFound })
  })
})
