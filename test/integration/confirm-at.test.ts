/**
 * The confirmation answer at past moments on a real chDB store: `confirmSeries` gives at each step what
 * `confirmAt` gives alone, a later import with old event times changes no answer known before it arrived
 * (and does change what is known after it), and a moment before any data answers the blind SKIP.
 */
import { describe, expect, it, beforeAll } from 'vitest'
import { confirmAt, confirmSeries } from '../../engine/asof/confirm-at.js'
import { useMigratedStore } from '../helpers/migrated-store.js'
import { writeMarket } from '../helpers/asof/market-rows.js'

const s = useMigratedStore()
const HOUR = 3_600_000
const t0 = Date.UTC(2026, 9, 1, 0, 0, 0)
/** the late import arrives at this moment (receive time), with event times of day 2 */
const importAt = t0 + 80 * HOUR

beforeAll(async () => {
  // three days of a live feed: rows received 2 s after their event time
  const live = { fromMs: t0, toMs: t0 + 72 * HOUR, lagMs: () => 2_000, seed: 7, tag: 'live' }
  await writeMarket(s.store, live)
  // the same feed for ETH, which gets no late import
  await writeMarket(s.store, { ...live, base: 'ETH' })
  // a late import of hours 30-40 (other trades, funding, OI, whales), received at importAt
  await writeMarket(s.store, {
    fromMs: t0 + 30 * HOUR + 60_000,
    toMs: t0 + 40 * HOUR,
    lagMs: (ts) => importAt - ts,
    seed: 99,
    tag: 'late'
  })
}, 120_000)

/** an ETH answer read as BTC's (the two markets are written alike) */
const asBtc = <T extends { symbol: string }>(r: T): T => ({ ...r, symbol: 'BTC' })

/** hourly steps over day 2 and 3, and a few off the hour */
const steps = [
  ...Array.from({ length: 40 }, (_, i) => t0 + (26 + i) * HOUR),
  t0 + 41 * HOUR + 17 * 60_000 + 123,
  t0 + 55 * HOUR + 2_000,
  t0 + 55 * HOUR + 1_999
]

describe('confirmAt and confirmSeries', () => {
  it('give the same answer at every step, each known by its own moment', async () => {
    const series = await confirmSeries(s.store, 'BTC', 'long', steps)
    expect(series).toHaveLength(steps.length)
    for (let i = 0; i < steps.length; i++) {
      const at = await confirmAt(s.store, 'BTC', 'long', { asOfMs: steps[i]!, knownByMs: steps[i]! })
      expect(series[i], `step ${i} ${new Date(steps[i]!).toISOString()}`).toEqual(at)
    }
    // the answers carry data: derivatives, on-chain and whale inputs were found
    const mid = series[20]!
    expect(mid.derivatives.funding_rate).not.toBeNull()
    expect(mid.derivatives.oi_change_24h).not.toBeNull()
    expect(mid.smart_money.net_flow_usd).not.toBeNull()
    expect(mid.as_of).toBe(new Date(steps[20]!).toISOString())
  }, 120_000)

  it('with a fixed known_by, equal confirmAt with it; the late import shows only once received', async () => {
    const known = importAt + 1
    const series = await confirmSeries(s.store, 'BTC', 'short', steps, known)
    const own = await confirmSeries(s.store, 'BTC', 'short', steps)
    let differs = 0
    for (let i = 0; i < steps.length; i++) {
      const at = await confirmAt(s.store, 'BTC', 'short', { asOfMs: steps[i]!, knownByMs: known })
      expect(series[i]).toEqual(at)
      if (JSON.stringify(series[i]) !== JSON.stringify(own[i])) differs++
    }
    // the import (event hours 30-40) changes what is known about the steps it covers
    expect(differs).toBeGreaterThan(0)
    // known by a moment before the import arrived: as if it had never come
    const before = await confirmSeries(s.store, 'BTC', 'short', steps, importAt - 1)
    const without = await confirmSeries(s.store, 'ETH', 'short', steps, importAt - 1)
    expect(before).toEqual(without.map(asBtc))
    const ownWithout = await confirmSeries(s.store, 'ETH', 'short', steps)
    expect(own).toEqual(ownWithout.map(asBtc))
  }, 120_000)

  it('answers the blind SKIP before any data', async () => {
    const r = await confirmAt(s.store, 'BTC', 'long', { asOfMs: t0 - HOUR, knownByMs: t0 - HOUR })
    expect(r.action).toBe('SKIP')
    expect(r.derivatives).toEqual({ funding_rate: null, oi_change_24h: null })
  })
})
