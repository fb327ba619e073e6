import { describe, expect, it } from 'vitest'
import { chainMetrics, summarizeChain } from '../../engine/options/chain-summary.js'
import { formatExpiryCode } from '../../engine/options/instrument.js'
import { maxPainBruteForce } from '../../engine/options/max-pain.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'

/** 2025-01-01 00:00 UTC */
const NOW = Date.UTC(2025, 0, 1)
/** a quote time with a millisecond part, so `updated` must round down to whole seconds */
const TS = NOW - 4_321

function quote(instrument: string, fields: Partial<OptionQuoteRecord> = {}): OptionQuoteRecord {
  return {
    kind: 'option_quote',
    ts: TS,
    exchange: 'deribit',
    instrument,
    underlying_price: 100_000,
    mark_price: 0.01,
    open_interest: 1,
    volume_24h: 0,
    ...fields
  }
}

describe('summarizeChain', () => {
  it('keeps strikes from exactly 0.5× to exactly 2.0× the underlying, ascending', () => {
    const strikes = [200_001, 50_000, 49_999, 100_000, 200_000]
    const s = summarizeChain(
      strikes.map((k) => quote(`BTC-31JAN25-${k}-C`)),
      NOW,
      'BTC'
    )
    expect(s.oi_by_strike.map((r) => r.strike)).toEqual([50_000, 100_000, 200_000])
  })

  it('keeps fractional band edges exactly (ETH at 3333.5: 1666.75 and 6667)', () => {
    const names = ['1666d75', '1666d74', '6667', '6667d01'].map((k) => `ETH-31JAN25-${k}-P`)
    const s = summarizeChain(
      names.map((n) => quote(n, { underlying_price: 3333.5 })),
      NOW,
      'ETH'
    )
    expect(s.oi_by_strike.map((r) => r.strike)).toEqual([1666.75, 6667])
  })

  it('counts strikes outside the band in every total and per-expiry figure', () => {
    const s = summarizeChain(
      [
        quote('BTC-31JAN25-100000-C', { open_interest: 2, volume_24h: 1 }),
        quote('BTC-31JAN25-10000-P', { open_interest: 3, volume_24h: 4 }),
        quote('BTC-31JAN25-400000-C', { open_interest: 5, volume_24h: 6 })
      ],
      NOW,
      'BTC'
    )
    expect(s.oi_by_strike).toEqual([{ strike: 100_000, call_oi: 2, put_oi: 0 }])
    expect([s.total_call_oi, s.total_put_oi, s.total_call_volume, s.total_put_volume]).toEqual([7, 3, 7, 4])
    expect(s.pcr_oi).toBeCloseTo(3 / 7, 12)
    expect(s.pcr_volume).toBeCloseTo(4 / 7, 12)
    expect(s.expiry_summary['31JAN25']).toMatchObject({ call_oi: 7, put_oi: 3, total_contracts: 10 })
  })

  it('sums OI by strike across expiries and rounds total_contracts', () => {
    const s = summarizeChain(
      [
        quote('BTC-31JAN25-90000-C', { open_interest: 1.2 }),
        quote('BTC-28MAR25-90000-C', { open_interest: 2.1 }),
        quote('BTC-28MAR25-90000-P', { open_interest: 0.3 })
      ],
      NOW,
      'BTC'
    )
    expect(s.oi_by_strike).toHaveLength(1)
    expect(s.oi_by_strike[0]?.call_oi).toBeCloseTo(3.3, 12)
    expect(s.oi_by_strike[0]?.put_oi).toBeCloseTo(0.3, 12)
    expect(s.expiry_summary['31JAN25']?.total_contracts).toBe(1)
    expect(s.expiry_summary['28MAR25']?.total_contracts).toBe(2)
  })

  it('gives null ratios, never Infinity or NaN, when there are no calls or no call OI', () => {
    const onlyPuts = summarizeChain([quote('BTC-31JAN25-90000-P', { volume_24h: 3 })], NOW, 'BTC')
    expect(onlyPuts.pcr_oi).toBeNull()
    expect(onlyPuts.pcr_volume).toBeNull()
    expect(onlyPuts.expiry_summary['31JAN25']?.pcr).toBeNull()

    const zeroCalls = summarizeChain(
      [quote('BTC-31JAN25-90000-P'), quote('BTC-31JAN25-90000-C', { open_interest: 0, volume_24h: 0 })],
      NOW,
      'BTC'
    )
    expect(zeroCalls.pcr_oi).toBeNull()
    expect(zeroCalls.expiry_summary['31JAN25']?.pcr).toBeNull()
    expect(zeroCalls.pcr_volume).toBeNull()
  })

  it('excludes expired instruments, including one expiring exactly now', () => {
    const s = summarizeChain(
      [
        quote('BTC-27DEC24-90000-C', { open_interest: 100 }),
        quote('BTC-1JAN25-90000-C', { open_interest: 10 }), // 08:00 UTC, still live at 00:00
        quote('BTC-31JAN25-90000-C', { open_interest: 1 })
      ],
      Date.UTC(2025, 0, 1, 8),
      'BTC'
    )
    expect(Object.keys(s.expiry_summary)).toEqual(['31JAN25'])
    expect(s.total_call_oi).toBe(1)
    expect(summarizeChain([quote('BTC-1JAN25-90000-C')], Date.UTC(2025, 0, 1, 8) - 1, 'BTC').total_call_oi).toBe(1)
  })

  it('uses only the latest quote per instrument, whatever the input order', () => {
    const s = summarizeChain(
      [
        quote('BTC-31JAN25-90000-C', { ts: TS - 2000, open_interest: 5, underlying_price: 90_000 }),
        quote('BTC-31JAN25-90000-C', { ts: TS, open_interest: 7, underlying_price: 97_000 }),
        quote('BTC-31JAN25-90000-C', { ts: TS - 1000, open_interest: 9, underlying_price: 95_000 }),
        quote('BTC-31JAN25-90000-P', { ts: TS - 3000, open_interest: 2, underlying_price: 91_000 })
      ],
      NOW,
      'BTC'
    )
    expect(s.total_call_oi).toBe(7)
    expect(s.total_put_oi).toBe(2)
    expect(s.underlying_price).toBe(97_000)
    expect(s.updated).toBe(NOW / 1000 - 5)
    expect(Number.isInteger(s.updated)).toBe(true)
  })

  it('takes only instruments of exactly that currency', () => {
    const s = summarizeChain(
      [
        quote('BTC-31JAN25-90000-C', { open_interest: 1 }),
        quote('BTC_USDC-31JAN25-90000-C', { open_interest: 10 }),
        quote('ETH-31JAN25-3000-C', { open_interest: 100 }),
        quote('BTC-PERPETUAL', { open_interest: 1000 }),
        quote('BTC-31JAN25', { open_interest: 1000 }),
        quote('BTC-31FEB25-90000-C', { open_interest: 1000 })
      ],
      NOW,
      'BTC'
    )
    expect(s.total_call_oi).toBe(1)
    expect(Object.keys(s.expiry_summary)).toEqual(['31JAN25'])
    expect(summarizeChain([quote('ETH-31JAN25-3000-C')], NOW, 'ETH').currency).toBe('ETH')
  })

  it('keys expiry_summary and max_pain by the date code as written, in expiry order', () => {
    const s = summarizeChain(
      [quote('BTC-28MAR25-80000-P'), quote('BTC-5JAN25-100000-C'), quote('BTC-31JAN25-90000-C')],
      NOW,
      'BTC'
    )
    expect(Object.keys(s.expiry_summary)).toEqual(['5JAN25', '31JAN25', '28MAR25'])
    expect(Object.keys(s.max_pain)).toEqual(['5JAN25', '31JAN25', '28MAR25'])
    expect(s.max_pain['5JAN25']).toEqual({ strike: 100_000, total_pain_quote: 0, quote_currency: 'USD' })
  })

  it('computes max pain per expiry over that expiry only', () => {
    const quotes = [
      quote('BTC-31JAN25-90000-C', { open_interest: 10 }),
      quote('BTC-31JAN25-100000-C', { open_interest: 5 }),
      quote('BTC-31JAN25-110000-C', { open_interest: 1 }),
      quote('BTC-31JAN25-90000-P', { open_interest: 2 }),
      quote('BTC-31JAN25-100000-P', { open_interest: 4 }),
      quote('BTC-31JAN25-110000-P', { open_interest: 8 }),
      quote('BTC-28MAR25-150000-P', { open_interest: 1000 })
    ]
    const s = summarizeChain(quotes, NOW, 'BTC')
    // payout(100000) = 10000×10 + 10000×8 = 180000 USD, the lowest of the three
    expect(s.max_pain['31JAN25']).toEqual({ strike: 100_000, total_pain_quote: 180_000, quote_currency: 'USD' })
    expect(s.expiry_summary['31JAN25']?.max_pain).toBe(100_000)
    expect(s.max_pain['28MAR25']?.strike).toBe(150_000)
  })

  it('is well formed with no quotes', () => {
    const s = summarizeChain([], NOW, 'ETH')
    expect(s).toEqual({
      currency: 'ETH',
      underlying_price: 0,
      total_call_oi: 0,
      total_put_oi: 0,
      total_call_volume: 0,
      total_put_volume: 0,
      pcr_oi: null,
      pcr_volume: null,
      oi_by_strike: [],
      expiry_summary: {},
      max_pain: {},
      updated: 0
    })
    expect(chainMetrics(s)).toEqual({
      total_call_oi: 0,
      total_put_oi: 0,
      pcr_oi: null,
      pcr_volume: null,
      max_pain_nearest: null,
      nearest_expiry: null
    })
  })
})

describe('chainMetrics', () => {
  it('reports the max pain of the nearest expiry', () => {
    const s = summarizeChain(
      [
        quote('BTC-28MAR25-80000-P', { open_interest: 3 }),
        quote('BTC-10JAN25-95000-C', { open_interest: 2, volume_24h: 2 }),
        quote('BTC-10JAN25-95000-P', { open_interest: 1, volume_24h: 1 })
      ],
      NOW,
      'BTC'
    )
    expect(chainMetrics(s)).toEqual({
      total_call_oi: 2,
      total_put_oi: 4,
      pcr_oi: 2,
      pcr_volume: 0.5,
      max_pain_nearest: 95_000,
      nearest_expiry: '10JAN25'
    })
  })
})

describe('summarizeChain on a full chain', () => {
  /** 8 expiries × 50 strikes × call/put = 800 instruments, with a deterministic pseudo-random OI */
  function fullChain(): OptionQuoteRecord[] {
    let seed = 7
    const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647
    const quotes: OptionQuoteRecord[] = []
    for (let e = 0; e < 8; e++) {
      const code = formatExpiryCode(NOW + (e * 7 + 3) * 86_400_000)
      for (let i = 0; i < 50; i++) {
        for (const cp of ['C', 'P']) {
          const oi = Math.round(rand() * 5000) / 10
          quotes.push(quote(`BTC-${code}-${40_000 + i * 5000}-${cp}`, { open_interest: oi, volume_24h: oi / 10 }))
        }
      }
    }
    return quotes
  }

  it('matches the brute-force max pain per expiry', () => {
    const quotes = fullChain()
    const s = summarizeChain(quotes, NOW, 'BTC')
    expect(Object.keys(s.expiry_summary)).toHaveLength(8)
    expect(Object.keys(s.max_pain)).toHaveLength(8)
    for (const code of Object.keys(s.max_pain)) {
      const rows = quotes
        .filter((q) => q.instrument.startsWith(`BTC-${code}-`))
        .map((q) => {
          const strike = Number(q.instrument.split('-')[2])
          const call = q.instrument.endsWith('-C')
          return { strike, callOi: call ? q.open_interest : 0, putOi: call ? 0 : q.open_interest }
        })
      expect(s.max_pain[code]?.strike).toBe(maxPainBruteForce(rows)?.strike)
    }
  })
})
