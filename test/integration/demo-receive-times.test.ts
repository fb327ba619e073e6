/**
 * The demo market's receive times (docs/demo-market.md): its backfill stands for a service that ran live
 * through the month, so each backfilled row is stamped received at its own event time (and the known-at
 * ledger sees every backfilled hour complete by its end); its live rows are received after their events.
 */
import { describe, expect, it, afterAll, beforeAll } from 'vitest'
import { oldestKnown, KNOWN_AT_TABLES } from '../../engine/asof/known-at.js'
import { startTestServer } from '../helpers/server.js'
import { until } from '../helpers/until.js'

const HOUR = 3_600_000

describe('the demo market', () => {
  let srv: Awaited<ReturnType<typeof startTestServer>>
  beforeAll(async () => {
    srv = await startTestServer({ SOURCES: 'sim', SIM_BACKFILL_DAYS: '1' })
  }, 120_000)
  afterAll(async () => {
    await srv?.stop()
  })

  it('stamps its backfill received at the event time and its live rows received after theirs', async () => {
    const store = srv.running.ctx.store
    const [state] = await store.query<{ value: string }>(
      `SELECT argMax(value, updated) AS value FROM engine_state WHERE startsWith(key, 'sim:') GROUP BY key`
    )
    const liveFrom = (JSON.parse(state!.value) as { liveFrom: number }).liveFrom
    for (const table of KNOWN_AT_TABLES) {
      const [r] = await store.query<{ n: number; other: number }>(
        `SELECT count() AS n, countIf(ingest_ts != ts) AS other FROM ${table}
         WHERE ts < fromUnixTimestamp64Milli({live:Int64}, 'UTC')`,
        { live: liveFrom }
      )
      expect(Number(r!.n), table).toBeGreaterThan(0)
      expect(Number(r!.other), table).toBe(0)
    }
    // the ledger sees the backfill as known when it happened: every whole hour was complete by its end
    const [ledger] = await store.query<{ worst: number }>(
      `SELECT max(toUnixTimestamp64Milli(last_known) - toUnixTimestamp(bucket) * 1000) AS worst
       FROM (SELECT bucket, max(last_known) AS last_known FROM known_at_1h WHERE tbl = 'trades'
             AND bucket + INTERVAL 1 HOUR <= fromUnixTimestamp64Milli({live:Int64}, 'UTC') GROUP BY bucket)`,
      { live: liveFrom }
    )
    expect(Number(ledger!.worst)).toBeLessThan(HOUR)
    expect(await oldestKnown(store, 'trades', liveFrom - 20 * HOUR)).toBeLessThanOrEqual(liveFrom - 23 * HOUR)
    const liveRows = async (): Promise<{ n: number; early: number }> => {
      const [r] = await store.query<{ n: number; early: number }>(
        `SELECT count() AS n, countIf(ingest_ts < ts) AS early FROM trades
         WHERE ts >= fromUnixTimestamp64Milli({live:Int64}, 'UTC')`,
        { live: liveFrom }
      )
      return { n: Number(r!.n), early: Number(r!.early) }
    }
    await until('live demo trades are stored', async () => (await liveRows()).n > 0)
    expect((await liveRows()).early).toBe(0)
  })
})
