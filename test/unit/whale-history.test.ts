import { describe, expect, it } from 'vitest'
import { PLANS } from '../../engine/access/plans.js'
import { apiError } from '../helpers/api-error.js'
import { MAX_BUCKETS, parseInterval, resolveGrid } from '../../engine/history/snapshot-grid.js'
import { assetOfToken, assetsOf, tokensOf } from '../../engine/history/whale-assets.js'
import type { ExchangeFlowBucket, WhaleFlowBucket } from '../../engine/history/whale-flows.js'
import { metricValue, netFlowSeries, whaleHistoryRecords, WHALE_METRICS } from '../../engine/history/whale-history.js'
import { CHAINS } from '../../engine/records/types.js'
import { EXCHANGE_HOT_WALLET_ADDRESSES, EXCHANGE_HOT_WALLETS } from '../../engine/whales/exchange-wallets.js'
import { hashKey, mixSeed, streamId } from '../../ingest/sources/sim/hash-rng.js'
import { addressFor, CHAIN_SPECS, EXCHANGE_WALLETS } from '../../ingest/sources/sim/whale-wallets.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const T0 = Date.UTC(2025, 0, 1)

const flow = (t: number, p: Partial<WhaleFlowBucket> = {}): WhaleFlowBucket => ({
  t,
  events: 2,
  usdIn: 3_000_000,
  usdOut: 1_000_000,
  usdTotal: 4_500_000,
  whales: 2,
  ...p
})

describe('whale assets', () => {
  it('folds wrapped forms into their asset and keeps stablecoins apart', () => {
    expect(tokensOf('btc')).toEqual(['BTC', 'WBTC', 'BTCB', 'CBBTC'])
    expect(tokensOf('ETH')).toEqual(['ETH', 'WETH'])
    expect(tokensOf('usdt')).toEqual(['USDT'])
    expect(tokensOf('WBTC')).toEqual(['WBTC'])
    expect(assetOfToken('wbtc')).toBe('BTC')
    expect(assetOfToken('USDC')).toBe('USDC')
    expect(assetsOf(['WETH', 'ETH', 'USDC', 'WBTC', 'SOL'])).toEqual(['BTC', 'ETH', 'SOL', 'USDC'])
  })
})

describe('whale history records', () => {
  it('computes each metric from the bucket flows', () => {
    const f = flow(T0)
    expect(WHALE_METRICS.map((m) => metricValue(m, f))).toEqual([2_000_000, 3_000_000, 1_000_000, 4_500_000, 2])
    // USD in cents, without the float noise of differences and sums (0.3 - 0.1 = 0.19999999999999998)
    expect(metricValue('net_accumulation', flow(T0, { usdIn: 0.3, usdOut: 0.1 }))).toBe(0.2)
  })

  it('gives null for a bucket without rows, 0 for a real zero, and exchange fields only with every raw row', () => {
    const starts = [T0, T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]
    const flows = [
      flow(T0),
      // swaps only: nothing crossed the wallet boundary, a real 0
      flow(T0 + 2 * HOUR, { events: 1, usdIn: 0, usdOut: 0, usdTotal: 700_000, whales: 1 }),
      flow(T0 + 3 * HOUR)
    ]
    const exchange: ExchangeFlowBucket[] = [
      { t: T0, rows: 2, inflow: 1_000_000, outflow: 0 },
      { t: T0 + 2 * HOUR, rows: 1, inflow: 0, outflow: 0 },
      // one of two raw rows expired: the exchange part is unknown
      { t: T0 + 3 * HOUR, rows: 1, inflow: 0, outflow: 0 }
    ]
    const recs = whaleHistoryRecords('BTC', 'net_accumulation', starts, flows, exchange)
    expect(recs).toEqual([
      {
        timestamp: T0,
        asset: 'BTC',
        metric: 'net_accumulation',
        value: 2_000_000,
        whale_count: 2,
        exchange_inflow: 1_000_000,
        exchange_outflow: 0
      },
      {
        timestamp: T0 + HOUR,
        asset: 'BTC',
        metric: 'net_accumulation',
        value: null,
        whale_count: null,
        exchange_inflow: null,
        exchange_outflow: null
      },
      {
        timestamp: T0 + 2 * HOUR,
        asset: 'BTC',
        metric: 'net_accumulation',
        value: 0,
        whale_count: 1,
        exchange_inflow: 0,
        exchange_outflow: 0
      },
      {
        timestamp: T0 + 3 * HOUR,
        asset: 'BTC',
        metric: 'net_accumulation',
        value: 2_000_000,
        whale_count: 2,
        exchange_inflow: null,
        exchange_outflow: null
      }
    ])
    // no raw rows at all (older than the raw retention): null as well
    expect(whaleHistoryRecords('BTC', 'inflow', [T0], [flow(T0)], [])[0]).toMatchObject({
      value: 3_000_000,
      exchange_inflow: null,
      exchange_outflow: null
    })
    expect(netFlowSeries(starts, flows)).toEqual([2_000_000, null, 0, 2_000_000])
  })
})

describe('exchange hot wallet labels', () => {
  it('are the demo market’s hot wallets, derived as the simulator derived them (tag 71)', () => {
    const seed = mixSeed(0xa11e7)
    const names = ['Binance', 'Coinbase', 'OKX', 'Bybit', 'Kraken', 'Bitfinex', 'KuCoin', 'Gate']
    CHAIN_SPECS.forEach((spec, c) => {
      const derived = Array.from({ length: 16 }, (_, i) => {
        const key = hashKey(seed, streamId(71, c), i)
        return { address: addressFor(spec.evm, key, key ^ 0x5bd1e995), label: `${names[i >> 1]} ${(i % 2) + 1}` }
      })
      expect(EXCHANGE_HOT_WALLETS[spec.chain]).toEqual(derived)
      expect(EXCHANGE_WALLETS[c]).toBe(EXCHANGE_HOT_WALLETS[spec.chain])
    })
  })

  it('cover every chain with distinct addresses, EVM ones in lower case', () => {
    expect(Object.keys(EXCHANGE_HOT_WALLETS).sort()).toEqual([...CHAINS].sort())
    expect(new Set(EXCHANGE_HOT_WALLET_ADDRESSES).size).toBe(EXCHANGE_HOT_WALLET_ADDRESSES.length)
    for (const a of EXCHANGE_HOT_WALLET_ADDRESSES) {
      if (a.startsWith('0x')) expect(a).toMatch(/^0x[0-9a-f]{40}$/)
      else expect(a).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/)
    }
  })
})

describe('bucket grid', () => {
  const now = T0 + 10 * DAY + 5 * HOUR + 17 * 60_000
  const trader = PLANS.trader

  it('accepts whole hours, days, weeks and months only', () => {
    for (const ok of ['1h', '4h', '12h', '1d', '3d', '1w', '1M', '3M']) expect(() => parseInterval(ok)).not.toThrow()
    for (const bad of ['30m', '90m', '1y', 'abc', '0h', '']) {
      const e = apiError(() => parseInterval(bad))
      expect(e.code).toBe('invalid_parameter')
      expect(e.param).toBe('interval')
    }
    expect(apiError(() => parseInterval('90m')).message).toContain('whole hours, days, weeks or months')
  })

  it('serves the closed buckets wholly inside the lookback, oldest first', () => {
    const g = resolveGrid({ interval: '1h', lookback: '6h' }, { n: 30, unit: 'd' }, trader, now)
    // now - 6h = 23:17 the day before -> first bucket 00:00; last closed bucket 04:00-05:00
    expect(g.from).toBe(T0 + 10 * DAY)
    expect(g.end).toBe(T0 + 10 * DAY + 5 * HOUR)
    expect(g.starts).toEqual([0, 1, 2, 3, 4].map((h) => T0 + 10 * DAY + h * HOUR))
    expect(g.daily).toBe(false)
    const d = resolveGrid({ interval: '1d' }, { n: 3, unit: 'd' }, trader, now)
    expect(d.starts).toEqual([T0 + 8 * DAY, T0 + 9 * DAY])
    expect(d.daily).toBe(true)
    expect(d.name).toBe('1d')
  })

  it('answers 400 naming each limit', () => {
    const grid = (interval: string, lookback: string, plan = trader) =>
      apiError(() => resolveGrid({ interval, lookback }, { n: 30, unit: 'd' }, plan, now))
    const tooMany = grid('1h', '500d', PLANS.enterprise)
    expect(tooMany.param).toBe('interval')
    expect(tooMany.message).toContain(`more than ${MAX_BUCKETS} buckets`)
    expect(grid('1d', '25M', PLANS.enterprise).message).toContain('at most 24 months')
    expect(grid('1d', '60d', PLANS.free).message).toBe(
      'the free plan reaches 30 days back; the range starts 60 days ago'
    )
    const short = grid('1d', '6h')
    expect(short.param).toBe('lookback')
    expect(short.message).toBe(
      'lookback (6 hours) is shorter than one interval (1 day); give a lookback of at least 1d'
    )
    expect(grid('1d', '30x').message).toContain('lookback must be a count and a unit')
  })
})
