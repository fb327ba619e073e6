/**
 * The confirmation answer at past moments on a real chDB store: `confirmSeries` gives at each step what
 * `confirmAt` gives alone, `confirmAt` (the base's rows only) gives what the books loaded in full give, a later import with old event times changes no answer known before it arrived
 * (and does change what is known after it), and a moment before any data answers the blind SKIP.
 */
import { describe, expect, it, beforeAll } from 'vitest'
import { confirmAt, confirmSeries } from '../../engine/asof/confirm-at.js'
import { booksAt } from '../../engine/live/books-load.js'
import { buildConfirmInputs, fundingHistoryAt } from '../../engine/live/confirm-inputs.js'
import { confirm } from '../../engine/confirm/confirm.js'
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

/** hourly steps over day 2 and 3 (the history endpoint's grid) */
const hourly = Array.from({ length: 40 }, (_, i) => t0 + (26 + i) * HOUR)
/** a grid off the hour: steps 37 min 11.5 s apart, some inside the late import's hours */
const odd = Array.from({ length: 24 }, (_, i) => t0 + 28 * HOUR + 17 * 60_000 + 123 + i * 2_231_500)
/** not a grid: answered step by step */
const loose = [t0 + 55 * HOUR + 1_999, t0 + 41 * HOUR + 17 * 60_000, t0 + 55 * HOUR + 2_000]

/** confirmAt at each of `steps` (every `every`-th only: each is a full load) against `series`. */
async function expectEachStep(
  series: readonly unknown[],
  steps: readonly number[],
  direction: 'long' | 'short',
  known?: number,
  every = 1
): Promise<void> {
  expect(series).toHaveLength(steps.length)
  for (let i = 0; i < steps.length; i += every) {
    const at = await confirmAt(s.store, 'BTC', direction, { asOfMs: steps[i]!, knownByMs: known ?? steps[i]! })
    expect(series[i], `step ${i} ${new Date(steps[i]!).toISOString()}`).toEqual(at)
  }
}

describe('confirmAt and confirmSeries', () => {
  it('give the same answer at every step, each known by its own moment', async () => {
    const series = await confirmSeries(s.store, 'BTC', 'long', hourly)
    await expectEachStep(series, hourly, 'long')
    // the answers carry data: derivatives, on-chain and whale inputs were found
    const mid = series[20]!
    expect(mid.derivatives.funding_rate).not.toBeNull()
    expect(mid.derivatives.oi_change_24h).not.toBeNull()
    expect(mid.smart_money.net_flow_usd).not.toBeNull()
    expect(mid.onchain_score).not.toBe(0)
    expect(mid.as_of).toBe(new Date(hourly[20]!).toISOString())
    await expectEachStep(await confirmSeries(s.store, 'BTC', 'short', odd), odd, 'short')
    await expectEachStep(await confirmSeries(s.store, 'BTC', 'long', loose), loose, 'long')
  }, 300_000)

  it('with a fixed known_by, equal confirmAt with it; the late import shows only once received', async () => {
    const known = importAt + 1
    const series = await confirmSeries(s.store, 'BTC', 'short', hourly, known)
    await expectEachStep(series, hourly, 'short', known, 3)
    await expectEachStep(await confirmSeries(s.store, 'BTC', 'long', odd, known), odd, 'long', known, 3)
    // the import (event hours 30-40) changes what is known about the steps it covers
    const own = await confirmSeries(s.store, 'BTC', 'short', hourly)
    expect(series.filter((r, i) => JSON.stringify(r) !== JSON.stringify(own[i])).length).toBeGreaterThan(0)
    // known by a moment before the import arrived: as if it had never come (ETH got the same feed, no import)
    const before = await confirmSeries(s.store, 'BTC', 'short', hourly, importAt - 1)
    const without = await confirmSeries(s.store, 'ETH', 'short', hourly, importAt - 1)
    expect(before).toEqual(without.map(asBtc))
    const ownWithout = await confirmSeries(s.store, 'ETH', 'short', hourly)
    expect(own).toEqual(ownWithout.map(asBtc))
  }, 300_000)

  it('equal the answer computed from the books of every base and every part, loaded in full', async () => {
    // confirmAt reads only the base's rows and the model's parts; the full loader reads everything
    for (const t of [hourly[3]!, odd[5]!, loose[1]!, importAt + 17 * 60_000]) {
      for (const known of [t, importAt + HOUR]) {
        const pit = { asOfMs: t, knownByMs: Math.max(t, known) }
        const books = await booksAt(s.store, pit)
        expect(books.screener.hasBase('ETH')).toBe(true)
        const inputs = await buildConfirmInputs('BTC', t, {
          ...books,
          fundingHistory: fundingHistoryAt(s.store, pit.knownByMs)
        })
        const full = confirm('BTC', 'long', inputs, t)
        expect(full.smart_money.net_flow_usd).not.toBeNull()
        expect(await confirmAt(s.store, 'BTC', 'long', pit)).toEqual(full)
      }
    }
  }, 300_000)

  it('answers the blind SKIP before any data', async () => {
    const r = await confirmAt(s.store, 'BTC', 'long', { asOfMs: t0 - HOUR, knownByMs: t0 - HOUR })
    expect(r.action).toBe('SKIP')
    expect(r.derivatives).toEqual({ funding_rate: null, oi_change_24h: null })
  })

  it('answers moments whose windows reach before the epoch (nothing is stored there)', async () => {
    for (const t of [0, 10, HOUR]) {
      expect((await confirmAt(s.store, 'BTC', 'long', { asOfMs: t, knownByMs: t })).action).toBe('SKIP')
      const books = await booksAt(s.store, { asOfMs: t, knownByMs: t })
      expect(books.screener.rows(t)).toEqual([])
    }
  })
})
