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

describe('SIGKILL during the demo-market backfill', () => {
  it('resumes to exactly the generated data, once', async () => {
    const { dir, cleanup } = tmpDir()
    const env = {
      DATA_DIR: dir,
      SIM_SEED: String(SEED),
      SIM_BACKFILL_DAYS: String(DAYS),
      ADMIN_TOKEN: 'e2e-admin-token-0123456789'
    }
    const s = spawnServer(env, await freePort())
    await waitForHealth(s, (b) => b['ingest']?.written > 150_000, 60_000)
    s.child.kill('SIGKILL')
    await s.exited

    const again = spawnServer(env, await freePort())
    await waitForHealth(again, (b) => b['sources']?.[0]?.phase === 'live', 90_000)
    again.child.kill('SIGTERM')
    expect((await again.exited).code).toBe(0)

    const store = new ChdbStore({ path: dir, poolSize: 1 })
    const [state] = await store.query<{ value: string }>(
      'SELECT argMax(value, updated) AS value FROM engine_state WHERE key = {k:String} GROUP BY key',
      { k: `sim:${SEED}` }
    )
    const { liveFrom } = JSON.parse(state!.value) as { liveFrom: number }
    const from = liveFrom - DAYS * 86_400_000
    const expected: Record<string, number> = {}
    for (const chunk of createSimMarket(SEED).generate(from, liveFrom, 'backfill')) {
      for (const r of chunk) expected[r.kind] = (expected[r.kind] ?? 0) + 1
    }
    const count = async (sql: string): Promise<number> =>
      (await store.query<{ n: number }>(sql, { from: from / 1000, to: liveFrom / 1000 }))[0]!.n
    const range =
      'ts >= fromUnixTimestamp64Milli(toInt64({from:UInt32}) * 1000) AND ts < fromUnixTimestamp64Milli(toInt64({to:UInt32}) * 1000)'
    const bucketRange = 'bucket >= toDateTime({from:UInt32}) AND bucket < toDateTime({to:UInt32})'
    expect(await count(`SELECT count() AS n FROM trades WHERE ${range}`)).toBe(expected['trade'])
    expect(await count(`SELECT count() AS n FROM funding WHERE ${range}`)).toBe(expected['funding'])
    expect(await count(`SELECT count() AS n FROM option_quotes WHERE ${range}`)).toBe(expected['option_quote'])
    expect(await count(`SELECT count() AS n FROM whale_transfers WHERE ${range}`)).toBe(expected['whale_transfer'])
    expect(await count(`SELECT sum(trades) AS n FROM candles_1m WHERE ${bucketRange}`)).toBe(expected['trade'])
    expect(await count(`SELECT sum(trades) AS n FROM candles_1h WHERE ${bucketRange}`)).toBe(expected['trade'])
    expect(await count(`SELECT sum(samples) AS n FROM funding_1h WHERE ${bucketRange}`)).toBe(expected['funding'])
    expect(await count(`SELECT sum(events) AS n FROM whale_flows_1h WHERE ${bucketRange}`)).toBe(
      expected['whale_transfer']
    )
    await store.close()
    cleanup()
  })
})
