import { describe, expect, it } from 'vitest'
import { confirm, EMPTY_CONFIRM_INPUTS, type ConfirmInputs } from '../../engine/confirm/confirm.js'
import { mvrvTerm } from '../../engine/confirm/onchain-score.js'

const NOW_MS = Date.UTC(2025, 0, 5, 8)

function long(partial: Partial<ConfirmInputs>) {
  return confirm('BTC', 'long', { ...EMPTY_CONFIRM_INPUTS, ...partial }, NOW_MS)
}

/** 47 of 50 past rates below 0.031% per 8h, 3 above: the 94th percentile */
const HISTORY_94 = [...Array<number>(47).fill(0.0001), 0.0005, 0.0006, 0.0007]

describe('reasons name each driver with its number', () => {
  it('spells out every driver as documented', () => {
    const r = long({
      funding_rate: 0.00031,
      funding_interval_hours: 8,
      funding_history_30d: HISTORY_94,
      long_short_ratio: 2.4,
      oi_change_24h: 0.062,
      price_change_24h: 0.031,
      exchange_netflow_usd_24h: 120e6,
      mvrv: 3.4,
      whale_net_flow_usd_24h: 45e6,
      whales_long: 12,
      whales_short: 4
    })
    expect(r.reasons).toEqual([
      'funding 0.031% per 8h, 94th percentile of 30 days: longs crowded',
      'long/short ratio 2.40: longs crowded',
      'OI +6.2% with price +3.1% in 24h: uptrend confirmed',
      'exchange net inflow $120M in 24h: sell pressure',
      'MVRV 3.40: overheated',
      'whales net accumulated $45M; 12 long vs 4 short: whales accumulating'
    ])
  })

  it('names the other side and the missing parts', () => {
    const r = long({
      funding_rate: -0.0003,
      long_short_ratio: 0.5,
      oi_change_24h: -0.08,
      price_change_24h: -0.04,
      exchange_netflow_usd_24h: -1.25e9,
      mvrv: 0.8,
      whale_net_flow_usd_24h: -30e6
    })
    expect(r.reasons).toEqual([
      'funding -0.030% per 8h (interval unknown, 8h assumed), no 30-day history: shorts crowded',
      'long/short ratio 0.50: shorts crowded',
      'OI -8.0% with price -4.0% in 24h: positions closing: downtrend weakening',
      'exchange net outflow $1.25B in 24h: coins leaving exchanges',
      'MVRV 0.80: undervalued',
      'whales net distributed $30M; no whale wallet counts: whales distributing'
    ])
  })

  it('says which derivatives parts the score comes from', () => {
    expect(long({ long_short_ratio: 1 }).reasons[1]).toBe(
      'no funding or OI data: derivatives score from long/short only'
    )
    expect(long({ long_short_ratio: 1, oi_change_24h: 0.1 }).reasons[1]).toBe(
      'no funding or price change data: derivatives score from long/short only'
    )
    expect(long({ funding_rate: 0.0001, oi_change_24h: 0.1, price_change_24h: 0 }).reasons).toContain(
      'no long/short data: derivatives score from funding and OI only'
    )
    expect(long({ mvrv: 2 }).reasons).toContain('no exchange net flow data: on-chain score from MVRV only')
  })
})

describe('derivatives rules (long side)', () => {
  it('funding is compared per 8h: 0.01% per 1h equals 0.08% per 8h', () => {
    expect(long({ funding_rate: 0.0001, funding_interval_hours: 1 }).deriv_score).toBe(
      long({ funding_rate: 0.0008, funding_interval_hours: 8 }).deriv_score
    )
    expect(long({ funding_rate: 0.0001, funding_interval_hours: 8 }).deriv_score).toBe(0)
  })

  it('OI up with price up confirms, OI up with price down contradicts, OI down is small', () => {
    expect(long({ oi_change_24h: 0.1, price_change_24h: 0.05 }).deriv_score).toBeGreaterThan(0.1)
    expect(long({ oi_change_24h: 0.1, price_change_24h: -0.05 }).deriv_score).toBeLessThan(-0.1)
    const closingRally = long({ oi_change_24h: -0.1, price_change_24h: 0.05 }).deriv_score
    expect(closingRally).toBeLessThan(0)
    expect(Math.abs(closingRally)).toBeLessThanOrEqual(0.2 * 0.25)
    expect(long({ oi_change_24h: -0.1, price_change_24h: -0.05 }).deriv_score).toBeGreaterThan(0)
  })
})

describe('on-chain and whale rules (long side)', () => {
  it('exchange inflow is bearish, outflow bullish', () => {
    expect(long({ exchange_netflow_usd_24h: 2e8 }).onchain_score).toBeCloseTo(-0.6 * Math.tanh(1), 12)
    expect(long({ exchange_netflow_usd_24h: -2e8 }).onchain_score).toBeCloseTo(0.6 * Math.tanh(1), 12)
  })

  it('MVRV is bearish above 3, bullish below 1, neutral between', () => {
    expect([0.5, 0.7, 0.85, 1, 2, 3, 3.5, 4, 6].map(mvrvTerm)).toEqual(
      [1, 1, 0.5, 0, 0, 0, -0.5, -1, -1].map((x) => expect.closeTo(x, 12))
    )
    expect(long({ mvrv: 3.4 }).onchain_score).toBeLessThan(0)
    expect(long({ mvrv: 0.8 }).onchain_score).toBeGreaterThan(0)
  })

  it('whale accumulation and a long-leaning wallet count are bullish', () => {
    expect(long({ whale_net_flow_usd_24h: 5e7 }).whale_score).toBeCloseTo(0.6 * Math.tanh(1), 12)
    expect(long({ whales_long: 12, whales_short: 4 }).whale_score).toBeCloseTo(0.4 * 0.5, 12)
    expect(long({ whales_long: 0, whales_short: 0 }).whale_score).toBe(0)
    expect(long({ whale_net_flow_usd_24h: -5e7, whales_long: 1, whales_short: 9 }).whale_score).toBeLessThan(-0.7)
  })
})
