import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { confirm, EMPTY_CONFIRM_INPUTS, type ConfirmInputs, type ConfirmResult } from '../../engine/confirm/confirm.js'

const NOW_MS = Date.UTC(2025, 0, 5, 8)

/** a field that is missing, garbage (any double incl. NaN/±Infinity/-0) or realistic */
function field(realistic: fc.Arbitrary<number>): fc.Arbitrary<number | null> {
  return fc.oneof(
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.double(), weight: 1 },
    { arbitrary: realistic, weight: 4 }
  )
}

const fundingArb = fc.double({ min: -0.003, max: 0.003, noNaN: true })

const inputsArb: fc.Arbitrary<ConfirmInputs> = fc.record({
  funding_rate: field(fundingArb),
  funding_interval_hours: field(fc.constantFrom(1, 4, 8)),
  funding_history_30d: fc.option(fc.array(fc.oneof(fundingArb, fc.double()), { maxLength: 90 }), { nil: null }),
  long_short_ratio: field(fc.double({ min: 0.2, max: 5, noNaN: true })),
  oi_change_24h: field(fc.double({ min: -0.5, max: 0.5, noNaN: true })),
  price_change_24h: field(fc.double({ min: -0.3, max: 0.3, noNaN: true })),
  exchange_netflow_usd_24h: field(fc.double({ min: -1e9, max: 1e9, noNaN: true })),
  mvrv: field(fc.double({ min: 0.3, max: 5, noNaN: true })),
  whale_net_flow_usd_24h: field(fc.double({ min: -3e8, max: 3e8, noNaN: true })),
  whales_long: field(fc.integer({ min: 0, max: 50 })),
  whales_short: field(fc.integer({ min: 0, max: 50 }))
})

/** realistic inputs with the funding data present, for monotonicity */
const fundedArb: fc.Arbitrary<ConfirmInputs> = inputsArb.map((i) => ({
  ...i,
  funding_history_30d: i.funding_history_30d ?? [0.0001, 0.0002, -0.0001]
}))

function expectInRange(x: number, lo: number, hi: number): void {
  expect(Number.isFinite(x)).toBe(true)
  expect(x).toBeGreaterThanOrEqual(lo)
  expect(x).toBeLessThanOrEqual(hi)
}

function expectWellFormed(r: ConfirmResult): void {
  for (const x of [r.composite, r.deriv_score, r.onchain_score, r.whale_score]) expectInRange(x, -1, 1)
  expectInRange(r.size_mult, 0, 1.5)
  expectInRange(r.score, 0, 1)
  expect(Number.isInteger(r.ts)).toBe(true)
  expect(r.as_of).toBe('2025-01-05T08:00:00.000Z')
  for (const x of [...Object.values(r.smart_money), ...Object.values(r.derivatives)]) {
    expect(x === null || Number.isFinite(x)).toBe(true)
  }
  expect(r.reasons.length).toBeGreaterThanOrEqual(3)
  for (const reason of r.reasons) expect(reason).not.toMatch(/NaN|Infinity|undefined|null/)
}

describe('confirm on random inputs (nulls, NaN, ±Infinity included)', () => {
  it('keeps every numeric output finite and in its published range', () => {
    fc.assert(
      fc.property(inputsArb, fc.constantFrom('long' as const, 'short' as const), (inputs, direction) => {
        expectWellFormed(confirm('BTC', direction, inputs, NOW_MS))
      }),
      { seed: 101, numRuns: 3000 }
    )
  })

  it('is exactly antisymmetric: every short score is the negation of the long one', () => {
    fc.assert(
      fc.property(inputsArb, (inputs) => {
        const long = confirm('ETH', 'long', inputs, NOW_MS)
        const short = confirm('ETH', 'short', inputs, NOW_MS)
        expect(short.composite === -long.composite).toBe(true)
        expect(short.deriv_score === -long.deriv_score).toBe(true)
        expect(short.onchain_score === -long.onchain_score).toBe(true)
        expect(short.whale_score === -long.whale_score).toBe(true)
        expect(short.reasons).toEqual(long.reasons)
        expect(Object.is(short.composite, -0) || Object.is(long.composite, -0)).toBe(false)
      }),
      { seed: 202, numRuns: 3000 }
    )
  })
})

describe('crowded longs never help a long (and never hurt a short)', () => {
  /** long and short composites and the derivatives sub-score for the long side */
  function view(inputs: ConfirmInputs): readonly [number, number, number] {
    const long = confirm('BTC', 'long', inputs, NOW_MS)
    return [long.composite, confirm('BTC', 'short', inputs, NOW_MS).composite, long.deriv_score]
  }

  function expectNoBetterForLong(calmer: ConfirmInputs, crowded: ConfirmInputs): void {
    const [longCalm, shortCalm, derivCalm] = view(calmer)
    const [longCrowded, shortCrowded, derivCrowded] = view(crowded)
    expect(longCrowded).toBeLessThanOrEqual(longCalm)
    expect(derivCrowded).toBeLessThanOrEqual(derivCalm)
    expect(shortCrowded).toBeGreaterThanOrEqual(shortCalm)
  }

  it('higher funding rate', () => {
    fc.assert(
      fc.property(fundedArb, fundingArb, fundingArb, (inputs, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        expectNoBetterForLong({ ...inputs, funding_rate: lo }, { ...inputs, funding_rate: hi })
      }),
      { seed: 303, numRuns: 3000 }
    )
  })

  it('higher funding percentile (same rate, the 30-day history shifted down)', () => {
    fc.assert(
      fc.property(fundedArb, fundingArb, fc.double({ min: 0, max: 0.002, noNaN: true }), (inputs, rate, shift) => {
        const history = inputs.funding_history_30d ?? []
        const lower = history.map((h) => h - shift)
        expectNoBetterForLong(
          { ...inputs, funding_rate: rate },
          { ...inputs, funding_rate: rate, funding_history_30d: lower }
        )
      }),
      { seed: 404, numRuns: 3000 }
    )
  })

  it('higher long/short ratio', () => {
    const ratio = fc.double({ min: 0.05, max: 20, noNaN: true })
    fc.assert(
      fc.property(inputsArb, ratio, ratio, (inputs, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        expectNoBetterForLong({ ...inputs, long_short_ratio: lo }, { ...inputs, long_short_ratio: hi })
      }),
      { seed: 505, numRuns: 3000 }
    )
  })

  it('strictly lowers the long derivatives score when funding turns from calm to crowded', () => {
    const base = { funding_interval_hours: 8, funding_history_30d: [0.0001, 0.0001, 0.00012] }
    const calm = confirm('BTC', 'long', { ...EMPTY_CONFIRM_INPUTS, ...base, funding_rate: 0.00005 }, NOW_MS)
    const crowded = confirm('BTC', 'long', { ...EMPTY_CONFIRM_INPUTS, ...base, funding_rate: 0.0005 }, NOW_MS)
    expect(calm.deriv_score).toBeGreaterThan(0)
    expect(crowded.deriv_score).toBeLessThan(0)
  })
})
