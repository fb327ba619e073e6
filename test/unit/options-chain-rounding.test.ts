/**
 * Sums in the options chain (OI and volume totals, OI by strike, per-expiry OI, max-pain payouts) are
 * serialized without binary floating-point noise: 0.1 + 0.2 is `0.3`, not `0.30000000000000004`. Coin
 * amounts keep the decimals of the most precise amount summed (Deribit BTC options trade in 0.1-coin
 * steps), USD payouts are given in cents. Max pain and the put/call ratios are not rounded.
 */
import { describe, expect, it } from 'vitest'
import { roundTo, widenDecimals } from '../../engine/options/decimal-sums.js'
import { summarizeChain } from '../../engine/options/chain-summary.js'
import { maxPainBruteForce } from '../../engine/options/max-pain.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'

/** 2025-01-01 00:00 UTC */
const NOW = Date.UTC(2025, 0, 1)

function quote(instrument: string, open_interest: number, volume_24h = 0): OptionQuoteRecord {
  return {
    kind: 'option_quote',
    ts: NOW - 1000,
    exchange: 'deribit',
    instrument,
    underlying_price: 100_000,
    mark_price: 0.01,
    open_interest,
    volume_24h
  }
}

/** numbers written with more than 8 decimals: float noise such as 1718.6999999999998 */
const NOISE = /\d\.\d{9,}/
/** the chain as JSON without its put/call ratios (quotients, which have every decimal they need) */
const sumsJson = (value: unknown): string =>
  JSON.stringify(value, (key, v: unknown) => (key === 'pcr' || key.startsWith('pcr_') ? undefined : v))

describe('options chain sums', () => {
  it('serialize sums of 0.1-coin amounts without float noise', () => {
    // 1718.5 + 0.1 + 0.1 is 1718.6999999999998 in binary floating point; 0.1 + 0.2 is 0.30000000000000004
    const quotes = [
      quote('BTC-31JAN25-100000-C', 1718.5, 0.1),
      quote('BTC-28MAR25-100000-C', 0.1, 0.2),
      quote('BTC-27JUN25-100000-C', 0.1, 0.7),
      quote('BTC-31JAN25-90000-P', 0.1, 1.1),
      quote('BTC-31JAN25-110000-P', 0.2, 2.2),
      quote('BTC-31JAN25-80000-C', 3.3, 0)
    ]
    const s = summarizeChain(quotes, NOW, 'BTC')
    expect(sumsJson(s)).not.toMatch(NOISE)
    expect(s.total_call_oi).toBe(1722)
    expect(s.total_put_oi).toBe(0.3)
    expect(s.total_call_volume).toBe(1)
    expect(s.total_put_volume).toBe(3.3)
    expect(s.oi_by_strike.find((r) => r.strike === 100_000)?.call_oi).toBe(1718.7)
    expect(s.expiry_summary['31JAN25']).toMatchObject({ call_oi: 1721.8, put_oi: 0.3, total_contracts: 1722 })
  })

  it('round 0.1-step sums of a full chain to 0.1 and payouts to cents', () => {
    let seed = 11
    const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647
    const quotes: OptionQuoteRecord[] = []
    for (const expiry of ['31JAN25', '28FEB25', '28MAR25']) {
      for (let i = 0; i < 40; i++) {
        for (const cp of ['C', 'P']) {
          quotes.push(quote(`BTC-${expiry}-${60_000 + i * 2500}-${cp}`, Math.round(rand() * 9999) / 10, 0.1))
        }
      }
    }
    const s = summarizeChain(quotes, NOW, 'BTC')
    expect(sumsJson(s)).not.toMatch(NOISE)
    /** x is the double nearest to a number with at most one decimal */
    const tenths = (x: number): boolean => Math.round(x * 10) / 10 === x
    for (const x of [s.total_call_oi, s.total_put_oi, s.total_call_volume, s.total_put_volume])
      expect(tenths(x)).toBe(true)
    for (const r of s.oi_by_strike) expect(tenths(r.call_oi) && tenths(r.put_oi)).toBe(true)
    for (const [code, e] of Object.entries(s.expiry_summary)) {
      expect(tenths(e.call_oi) && tenths(e.put_oi)).toBe(true)
      // put/call ratios are quotients of the unrounded sums, never rounded themselves
      expect(e.pcr).toBeCloseTo(e.put_oi / e.call_oi, 14)
      const rows = quotes
        .filter((q) => q.instrument.startsWith(`BTC-${code}-`))
        .map((q) => {
          const call = q.instrument.endsWith('-C')
          const strike = Number(q.instrument.split('-')[2])
          return { strike, callOi: call ? q.open_interest : 0, putOi: call ? 0 : q.open_interest }
        })
      const brute = maxPainBruteForce(rows)!
      // the max-pain strike comes from the unrounded amounts; the payout is shown in cents
      expect(e.max_pain).toBe(brute.strike)
      expect(s.max_pain[code]?.strike).toBe(brute.strike)
      expect(s.max_pain[code]?.total_pain_quote).toBe(Math.round(brute.payout * 100) / 100)
    }
    // summed in instrument-name order, the order the summary adds in whatever the input order
    const byName = [...quotes].sort((a, b) => (a.instrument < b.instrument ? -1 : 1))
    const sum = (calls: boolean): number =>
      byName.filter((q) => q.instrument.endsWith('-C') === calls).reduce((a, q) => a + q.open_interest, 0)
    expect(s.pcr_oi).toBe(sum(false) / sum(true))
    expect(s.pcr_volume).toBe(1)
  })

  it('keep the precision of finer amounts (a 0.55-coin reading stays 0.55)', () => {
    const s = summarizeChain(
      [quote('ETH-31JAN25-3000-C', 0.55), quote('ETH-31JAN25-3100-C', 0.1), quote('ETH-31JAN25-3000-P', 1.2345)],
      NOW,
      'ETH'
    )
    expect(s.total_call_oi).toBe(0.65)
    expect(s.total_put_oi).toBe(1.2345)
  })
})

describe('widenDecimals and roundTo', () => {
  it('find the fewest decimals that hold an amount exactly, at most 8', () => {
    expect([0, 7, 0.1, 1718.5, 0.55, 1e-7, 1.5e-7, 1e21].map((x) => widenDecimals(0, x))).toEqual([
      0, 0, 1, 1, 2, 7, 8, 0
    ])
    expect(widenDecimals(0, 0.30000000000000004)).toBe(8) // noise in the input itself is cut at 1e-8
    expect(widenDecimals(3, 0.1)).toBe(3) // never narrower than the amounts already seen
  })

  it('round to decimals, leaving numbers too large to scale as they are', () => {
    expect(roundTo(1718.6999999999998, 1)).toBe(1718.7)
    expect(roundTo(0.30000000000000004, 8)).toBe(0.3)
    expect(roundTo(123.456, 0)).toBe(123)
    expect(roundTo(2 ** 60 + 0.5, 2)).toBe(2 ** 60 + 0.5)
  })
})
