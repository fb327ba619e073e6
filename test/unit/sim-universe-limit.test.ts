/**
 * `SIM_MARKETS`: the demo universe cut to its most liquid perpetual markets (ingest/sources/sim/universe.ts).
 */
import { describe, it, expect } from 'vitest'
import { limitMarkets, UNIVERSE } from '../../ingest/sources/sim/universe.js'
import { createSimMarket } from '../../ingest/sources/sim/sim-market.js'

describe('limitMarkets', () => {
  it('keeps the most liquid markets in the universe order, with their base and venue indexes', () => {
    const u = limitMarkets(UNIVERSE, 7)
    expect(u.markets).toHaveLength(7)
    const kept = u.markets.map((m) => UNIVERSE.markets.indexOf(m))
    expect(kept).toEqual([...kept].sort((a, b) => a - b))
    const worstKept = Math.max(...u.marketBase)
    const dropped = UNIVERSE.markets.filter((m) => !u.markets.includes(m))
    for (const m of dropped) expect(UNIVERSE.baseIndex.get(m.base)!).toBeGreaterThanOrEqual(worstKept)
    u.markets.forEach((m, i) => {
      expect(u.bases[u.marketBase[i]!]!.ticker).toBe(m.base)
      expect(u.marketVenue[i]).toBe(UNIVERSE.marketVenue[kept[i]!])
    })
    expect(u.bases).toBe(UNIVERSE.bases)
  })

  it('is the universe itself at or above its size, and refuses a count below 1', () => {
    expect(limitMarkets(UNIVERSE, UNIVERSE.markets.length)).toBe(UNIVERSE)
    expect(() => limitMarkets(UNIVERSE, 0)).toThrow(/positive integer/)
  })

  it('generates trades of the kept markets only', () => {
    const from = Date.UTC(2026, 0, 1)
    const sim = createSimMarket(42, 3)
    const symbols = new Set(sim.markets.map((m) => `${m.exchange}:${m.symbol}`))
    let trades = 0
    for (const chunk of sim.generate(from, from + 3_600_000, 'backfill')) {
      for (const r of chunk) {
        if (r.kind !== 'trade' || r.market !== 'perp') continue
        trades++
        expect(symbols.has(`${r.exchange}:${r.symbol}`)).toBe(true)
      }
    }
    expect(trades).toBeGreaterThan(0)
  })
})
