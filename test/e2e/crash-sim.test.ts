/**
 * SIGKILL during the demo market's backfill, then restart: the backfilled range holds exactly the records
 * the deterministic generator produces for it, once, in raw tables and views (windows written before the
 * kill but after the last checkpoint are regenerated into identical batches and deduplicated).
 */
import { describe, it, expect } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { createSimMarket } from '../../ingest/sources/sim/sim-market.js'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const SEED = 1234
const DAYS = 3
/**
 * Perpetual markets of the demo (SIM_MARKETS), the most liquid first: with the options and chain records,
 * which do not depend on it, about 53,000 records a day, so a 12-hour backfill slice holds about 27,000.
 */
const MARKETS = 4
/** Records written when the kill comes: inside the second of the six backfill slices. */
const KILL_AFTER_ROWS = 40_000
/**
 * Bound of one server start up to the kill or to the live phase, ms: module loading and chDB's start take
 * tens of seconds apiece on a loaded 2-core machine; the test asserts outcomes, so only this meets its speed.
 */
const HEALTH_MS = 150_000

describe('SIGKILL during the demo-market backfill', () => {
  it('resumes to exactly the generated data, once', { timeout: 3 * HEALTH_MS }, async () => {
    const { dir, cleanup } = tmpDir()
    const env = {
      DATA_DIR: dir,
      SIM_SEED: String(SEED),
      SIM_BACKFILL_DAYS: String(DAYS),
      SIM_MARKETS: String(MARKETS),
      ADMIN_TOKEN: 'e2e-admin-token-0123456789'
    }
    const s = spawnServer(env, await freePort())
    const atKill = await waitForHealth(s, (b) => b['ingest']?.written > KILL_AFTER_ROWS, HEALTH_MS).finally(() =>
      s.child.kill('SIGKILL')
    )
    await s.exited
    // the kill fell inside the backfill, not after it
    expect(atKill['sources'][0].phase).toBe('backfill')

    const again = spawnServer(env, await freePort())
    await waitForHealth(again, (b) => b['sources']?.[0]?.phase === 'live', HEALTH_MS).catch((err: unknown) => {
      again.child.kill('SIGKILL')
      throw err
    })
    again.child.kill('SIGTERM')
    expect((await again.exited).code).toBe(0)

    const store = new ChdbStore({ path: dir, poolSize: 1 })
    const [state] = await store.query<{ value: string }>(
      'SELECT argMax(value, updated) AS value FROM engine_state WHERE key = {k:String} GROUP BY key',
      { k: `sim:${SEED}` }
    )
    const { liveFrom } = JSON.parse(state!.value) as { liveFrom: number }
    const from = liveFrom - DAYS * 86_400_000
    const HOUR = 3_600_000
    // whole hours inside the range, for hourly views (the range is minute-aligned)
    const hourFrom = Math.ceil(from / HOUR) * HOUR
    const hourTo = Math.floor(liveFrom / HOUR) * HOUR
    const expected: Record<string, number> = {}
    let tradesWholeHours = 0
    let fundingWholeHours = 0
    let whalesWholeHours = 0
    for (const chunk of createSimMarket(SEED, MARKETS).generate(from, liveFrom, 'backfill')) {
      for (const r of chunk) {
        expected[r.kind] = (expected[r.kind] ?? 0) + 1
        if (r.ts >= hourFrom && r.ts < hourTo) {
          if (r.kind === 'trade') tradesWholeHours++
          if (r.kind === 'funding') fundingWholeHours++
          if (r.kind === 'whale_transfer') whalesWholeHours++
        }
      }
    }
    const dt = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
    const count = async (sql: string, a = from, b = liveFrom): Promise<number> =>
      (await store.query<{ n: number }>(sql, { from: dt(a), to: dt(b) }))[0]!.n
    const range = "ts >= {from:DateTime64(3, 'UTC')} AND ts < {to:DateTime64(3, 'UTC')}"
    const bucketRange = "bucket >= {from:DateTime64(3, 'UTC')} AND bucket < {to:DateTime64(3, 'UTC')}"
    expect(await count(`SELECT count() AS n FROM trades WHERE ${range}`)).toBe(expected['trade'])
    expect(await count(`SELECT count() AS n FROM funding WHERE ${range}`)).toBe(expected['funding'])
    expect(await count(`SELECT count() AS n FROM option_quotes WHERE ${range}`)).toBe(expected['option_quote'])
    expect(await count(`SELECT count() AS n FROM whale_transfers WHERE ${range}`)).toBe(expected['whale_transfer'])
    expect(await count(`SELECT sum(trades) AS n FROM candles_1m WHERE ${bucketRange}`)).toBe(expected['trade'])
    // hourly views: whole hours inside the (minute-aligned) range
    const hourly = (sql: string): Promise<number> => count(sql, hourFrom, hourTo)
    expect(await hourly(`SELECT sum(trades) AS n FROM candles_1h WHERE ${bucketRange}`)).toBe(tradesWholeHours)
    expect(await hourly(`SELECT sum(samples) AS n FROM funding_1h WHERE ${bucketRange}`)).toBe(fundingWholeHours)
    expect(await hourly(`SELECT sum(events) AS n FROM whale_flows_1h WHERE ${bucketRange}`)).toBe(whalesWholeHours)
    await store.close()
    cleanup()
  })
})
