import { describe, expect, it } from 'vitest'
import { confirm, EMPTY_CONFIRM_INPUTS, type ConfirmInputs } from '../../engine/confirm/confirm.js'

/** the worked example of docs/confirm.md, "Worked example": keep the two in step */
const EXAMPLE: ConfirmInputs = {
  funding_rate: 0.000155,
  funding_interval_hours: 4,
  funding_history_30d: [0.00005, 0.0001, 0.00012, 0.00008, 0.00015, 0.0001, 0.00009, 0.000155, 0.00011, 0.00007],
  long_short_ratio: 1.8,
  oi_change_24h: 0.062,
  price_change_24h: 0.031,
  exchange_netflow_usd_24h: 120_000_000,
  mvrv: 2.4,
  whale_net_flow_usd_24h: 45_000_000,
  whales_long: 12,
  whales_short: 4
}
const NOW_MS = Date.UTC(2025, 0, 5, 8)

const EXAMPLE_REASONS = [
  'funding 0.0155% per 4h = 0.031% per 8h, 95th percentile of 30 days: longs crowded',
  'long/short ratio 1.80: longs crowded',
  'OI +6.2% with price +3.1% in 24h: uptrend confirmed',
  'exchange net inflow $120M in 24h: sell pressure',
  'MVRV 2.40: neutral',
  'whales net accumulated $45M; 12 long vs 4 short: whales accumulating'
]

describe('confirm: the worked example of docs/confirm.md', () => {
  it('long: mixed context, REDUCE', () => {
    expect(confirm('BTC', 'long', EXAMPLE, NOW_MS)).toEqual({
      ts: 1736064000,
      symbol: 'BTC',
      direction: 'long',
      composite: expect.closeTo(-0.103345, 6),
      confidence: 'MEDIUM',
      action: 'REDUCE',
      size_mult: expect.closeTo(0.308319, 6),
      deriv_score: expect.closeTo(-0.470491, 6),
      onchain_score: expect.closeTo(-0.32223, 6),
      whale_score: expect.closeTo(0.629779, 6),
      reasons: EXAMPLE_REASONS,
      confirmation: 'NONE',
      score: expect.closeTo(0.448328, 6),
      smart_money: { net_flow_usd: 45_000_000, long_short_ratio: 1.8, whales_long: 12, whales_short: 4 },
      derivatives: { funding_rate: 0.000155, oi_change_24h: 0.062 },
      as_of: '2025-01-05T08:00:00.000Z'
    })
  })

  it('short: the same numbers negated, REDUCE with a larger size, confirmation LOW', () => {
    const r = confirm('BTC', 'short', EXAMPLE, NOW_MS)
    expect(r.composite).toBeCloseTo(0.103345, 6)
    expect([r.deriv_score, r.onchain_score, r.whale_score].map((x) => Number(x.toFixed(6)))).toEqual([
      0.470491, 0.32223, -0.629779
    ])
    expect([r.action, r.confidence, r.confirmation]).toEqual(['REDUCE', 'MEDIUM', 'LOW'])
    expect(r.size_mult).toBeCloseTo(0.566681, 6)
    expect(r.score).toBeCloseTo(0.551672, 6)
    expect(r.reasons).toEqual(EXAMPLE_REASONS)
  })
})

describe('confirm with every input missing', () => {
  it('has composite 0 but answers SKIP at size 0 (not the REDUCE composite 0 maps to), and says what is missing', () => {
    for (const direction of ['long', 'short'] as const) {
      const r = confirm('DOGE', direction, EMPTY_CONFIRM_INPUTS, NOW_MS)
      expect(Object.is(r.composite, 0)).toBe(true)
      expect([r.deriv_score, r.onchain_score, r.whale_score]).toEqual([0, 0, 0])
      expect([r.action, r.size_mult, r.confidence, r.confirmation, r.score]).toEqual(['SKIP', 0, 'MEDIUM', 'NONE', 0.5])
      expect(r.reasons).toEqual([
        'no derivatives data (funding, long/short, OI): derivatives score 0',
        'no on-chain data (exchange net flow, MVRV): on-chain score 0',
        'no whale data (net flow, wallet counts): whale score 0',
        'no input data at all: SKIP, nothing confirms either side'
      ])
      expect(r.smart_money).toEqual({
        net_flow_usd: null,
        long_short_ratio: null,
        whales_long: null,
        whales_short: null
      })
      expect(r.derivatives).toEqual({ funding_rate: null, oi_change_24h: null })
    }
  })

  it('treats NaN and ±Infinity as missing', () => {
    const garbage = Object.fromEntries(
      Object.keys(EMPTY_CONFIRM_INPUTS).map((k, i) => [k, [Number.NaN, Infinity, -Infinity][i % 3]])
    ) as unknown as ConfirmInputs
    const r = confirm('BTC', 'long', { ...garbage, funding_history_30d: [Number.NaN] }, NOW_MS)
    expect(r.composite).toBe(0)
    expect(r.action).toBe('SKIP')
    expect(r.reasons).toEqual(confirm('BTC', 'long', EMPTY_CONFIRM_INPUTS, NOW_MS).reasons)
  })

  it('answers from a single input as usual: one input present is enough to leave the no-data SKIP', () => {
    const r = confirm('BTC', 'long', { ...EMPTY_CONFIRM_INPUTS, mvrv: 1.0 }, NOW_MS)
    expect(r.reasons).not.toContain('no input data at all: SKIP, nothing confirms either side')
    expect(r.action).toBe('REDUCE')
  })

  it('rejects a non-finite clock and an unknown direction', () => {
    expect(() => confirm('BTC', 'long', EXAMPLE, Number.NaN)).toThrow(RangeError)
    expect(() => confirm('BTC', 'up' as 'long', EXAMPLE, NOW_MS)).toThrow(/direction/)
  })
})
