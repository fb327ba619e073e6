/**
 * SIGKILL during a full-speed replay (the worker-thread path: a recording of several MB), then a restart
 * on the same data directory replaying the same recording: every trade is stored once, in the raw table
 * and the candle views. Batches written before the kill are replayed into identical batches (same chunks,
 * same dedup tokens) and deduplicated; a batch cut by the kill is completed from the journal at start.
 * Small bulk batches (INGEST_BULK_BATCH_ROWS) make many batches, so the kill lands between the first and
 * the last. Needs `npm run build` first.
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { writeCapture } from '../../bench/replay/capture.js'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

/** trades of the recording: about 3.5 MB gzipped, above the replay source's worker threshold (1 MiB) */
const TRADES = 100_000
/** rows of a bulk batch: 20 batches, so the kill after the second leaves most of the replay to the restart */
const BATCH = 5_000
/**
 * Bound of one server start up to the kill or to the replay's end, ms: module loading and chDB's start take
 * tens of seconds apiece on a loaded 2-core machine; the test asserts outcomes, so only this meets its speed.
 */
const HEALTH_MS = 150_000
const rec = tmpDir()
const data = tmpDir()
/** two days ago, on the hour: inside the raw tables' TTL */
const START = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 48 * 3_600_000

beforeAll(async () => {
  const hour = new Date(START).toISOString().slice(0, 13)
  await writeCapture(path.join(rec.dir, `binance-${hour}.ndjson.gz`), TRADES, START)
})

afterAll(() => {
  rec.cleanup()
  data.cleanup()
})

describe('SIGKILL during a full-speed replay', () => {
  it('a restart replaying the same recording stores every trade once', { timeout: 3 * HEALTH_MS }, async () => {
    const env = {
      DATA_DIR: data.dir,
      SOURCES: `replay:${rec.dir}`,
      REPLAY_SPEED: 'max',
      INGEST_BULK_BATCH_ROWS: String(BATCH),
      ADMIN_TOKEN: 'e2e-admin-token-0123456789'
    }
    const s = spawnServer(env, await freePort())
    const atKill = await waitForHealth(s, (b) => b['ingest']?.written >= 2 * BATCH, HEALTH_MS).finally(() =>
      s.child.kill('SIGKILL')
    )
    await s.exited
    // the kill landed mid-replay
    expect(atKill['ingest'].written).toBeLessThan(TRADES)

    const again = spawnServer(env, await freePort())
    const done = await waitForHealth(again, (b) => b['sources']?.[0]?.phase === 'done', HEALTH_MS).catch(
      (err: unknown) => {
        again.child.kill('SIGKILL')
        throw err
      }
    )
    expect(done['sources'][0]).toMatchObject({ rows: TRADES, parse_errors: 0, duplicates: 0 })
    // both runs took the worker-thread path
    for (const run of [s, again]) {
      const line = run.stdout.split('\n').find((l) => l.includes('"msg":"replaying recording"'))
      expect(JSON.parse(line ?? '{}'), run.stdout.slice(-2000)).toMatchObject({ worker: true })
    }
    again.child.kill('SIGTERM')
    expect((await again.exited).code).toBe(0)

    const store = new ChdbStore({ path: data.dir, poolSize: 1 })
    const n = async (sql: string): Promise<number> => Number((await store.query<{ n: number }>(sql))[0]!.n)
    expect(await n('SELECT count() AS n FROM trades')).toBe(TRADES)
    expect(await n('SELECT uniqExact(symbol, trade_id) AS n FROM trades')).toBe(TRADES)
    expect(await n('SELECT sum(trades) AS n FROM candles_1m')).toBe(TRADES)
    await store.close()
  })
})
