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

const TRADES = 300_000
const BATCH = 20_000
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
  it('a restart replaying the same recording stores every trade once', async () => {
    const env = {
      DATA_DIR: data.dir,
      SOURCES: `replay:${rec.dir}`,
      REPLAY_SPEED: 'max',
      INGEST_BULK_BATCH_ROWS: String(BATCH),
      ADMIN_TOKEN: 'e2e-admin-token-0123456789'
    }
    const s = spawnServer(env, await freePort())
    const atKill = await waitForHealth(s, (b) => b['ingest']?.written >= 2 * BATCH, 60_000)
    s.child.kill('SIGKILL')
    await s.exited
    // the kill landed mid-replay
    expect(atKill['ingest'].written).toBeLessThan(TRADES)

    const again = spawnServer(env, await freePort())
    const done = await waitForHealth(again, (b) => b['sources']?.[0]?.phase === 'done', 120_000)
    expect(done['sources'][0]).toMatchObject({ rows: TRADES, parse_errors: 0, duplicates: 0 })
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
