/**
 * `confirmSeries` on the demo market's stored data (docs/demo-market.md): two backfilled days received at
 * their event times, then live rows received after their events. At every step of an hourly run over the
 * stored days and of a run seconds apart across the start of the live feed, each known by its own moment
 * and by one fixed moment, the series' answer is the answer `confirmAt` gives for that step alone, to the
 * byte of its JSON.
 */
import { describe, expect, it, beforeAll, afterAll } from 'vitest'
import { confirmAt, confirmSeries } from '../../engine/asof/confirm-at.js'
import type { ConfirmResult } from '../../engine/confirm/confirm.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { startTestServer } from '../helpers/server.js'
import { until } from '../helpers/until.js'

const HOUR = 3_600_000
/** the live feed runs at least this long past its start before the store is frozen, ms */
const LIVE_SPAN_MS = 20_000

let store: ChdbStore
let cleanup: () => void
/** the first live moment of the demo feed, and a moment after every stored row was received, epoch ms */
let liveFrom: number
let end: number

beforeAll(async () => {
  const srv = await startTestServer({ SOURCES: 'sim', SIM_BACKFILL_DAYS: '2' })
  const live = srv.running.ctx.store
  const [state] = await live.query<{ value: string }>(
    `SELECT argMax(value, updated) AS value FROM engine_state WHERE startsWith(key, 'sim:') GROUP BY key`
  )
  liveFrom = (JSON.parse(state!.value) as { liveFrom: number }).liveFrom
  await until('the live feed has run a while', async () => {
    const [r] = await live.query<{ n: number }>(
      `SELECT count() AS n FROM trades WHERE ts >= fromUnixTimestamp64Milli({at:Int64}, 'UTC')`,
      { at: liveFrom + LIVE_SPAN_MS }
    )
    return Number(r!.n) > 0
  })
  // stop the feed (the server flushes what it received), then read the data dir as it was left
  await srv.running.stop()
  end = Date.now()
  store = new ChdbStore({ path: srv.dataDir, poolSize: 2 })
  cleanup = () => srv.stop()
}, 180_000)

afterAll(async () => {
  await store?.close()
  cleanup?.()
})

/** The steps from `from` to `to` (inclusive bound), `stepMs` apart. */
function grid(from: number, to: number, stepMs: number): number[] {
  const out: number[] = []
  for (let t = from; t <= to; t += stepMs) out.push(t)
  return out
}

/** Every step of `series` is `confirmAt` of that step alone, byte for byte. */
async function expectEveryStep(
  series: readonly ConfirmResult[],
  steps: readonly number[],
  direction: 'long' | 'short',
  knownByMs?: number
): Promise<void> {
  expect(series).toHaveLength(steps.length)
  for (let i = 0; i < steps.length; i++) {
    const at = await confirmAt(store, 'BTC', direction, { asOfMs: steps[i]!, knownByMs: knownByMs ?? steps[i]! })
    expect(JSON.stringify(series[i]), `step ${i} ${new Date(steps[i]!).toISOString()}`).toBe(JSON.stringify(at))
  }
}

describe('confirmSeries on the demo market', () => {
  it('answers every hourly step over the stored days as confirmAt does', async () => {
    const lastHour = Math.floor(end / HOUR) * HOUR
    const hourly = grid(lastHour - 30 * HOUR, end, HOUR)
    const series = await confirmSeries(store, 'BTC', 'long', hourly)
    // the answers carry every kind of input
    const withData = series.filter(
      (r) =>
        r.derivatives.funding_rate !== null &&
        r.derivatives.oi_change_24h !== null &&
        r.smart_money.net_flow_usd !== null
    )
    expect(withData.length).toBeGreaterThan(hourly.length / 2)
    expect(series.some((r) => r.onchain_score !== 0)).toBe(true)
    await expectEveryStep(series, hourly, 'long')
    // one fixed known_by for every step: inside the live feed
    const known = liveFrom + LIVE_SPAN_MS / 2
    await expectEveryStep(await confirmSeries(store, 'BTC', 'short', hourly, known), hourly, 'short', known)
  }, 600_000)

  it('answers every step seconds apart across the start of the live feed as confirmAt does', async () => {
    // 7.3 s apart, off every minute and hour boundary; live rows arrive after their event times
    const fine = grid(liveFrom - 2 * 60_000 + 123, end, 7_300)
    await expectEveryStep(await confirmSeries(store, 'BTC', 'long', fine), fine, 'long')
    await expectEveryStep(await confirmSeries(store, 'BTC', 'short', fine, end), fine, 'short', end)
  }, 600_000)
})
