/**
 * SIGKILL while admin ingest requests are in flight, then restart: every batch the server acknowledged
 * (201) is in the raw table and in the views exactly once; an unacknowledged batch is either whole or absent.
 */
import { describe, it, expect } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { tradeBatch } from '../helpers/trade-batch.js'

const ADMIN = 'e2e-admin-token-0123456789'
const ROWS = 2000
const T0 = Date.UTC(2026, 10, 10)

/** the ingest bodies (batch numbers after 'b' in the trade ids) */
const BATCHES = { rows: ROWS, t0: T0, prefix: 'b' }

describe('SIGKILL during admin ingest', () => {
  it('keeps every acknowledged batch exactly once in raw tables and views', async () => {
    const { dir, cleanup } = tmpDir()
    const env = { DATA_DIR: dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }
    const s = spawnServer(env, await freePort())
    await waitForHealth(s)
    const acked = new Set<number>()
    const sent = new Set<number>()
    let next = 0
    const post = async (): Promise<void> => {
      for (;;) {
        const i = next++
        sent.add(i)
        try {
          const res = await fetch(`${s.base}/v1/admin/ingest/trade`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN}` },
            body: tradeBatch(i, BATCHES)
          })
          if (res.status === 201) acked.add(i)
        } catch {
          return // the server is gone
        }
      }
    }
    const posters = [post(), post(), post()]
    while (acked.size < 12) await new Promise((r) => setTimeout(r, 20))
    s.child.kill('SIGKILL')
    await Promise.all(posters)
    await s.exited

    const again = spawnServer(env, await freePort())
    await waitForHealth(again)
    again.child.kill('SIGTERM')
    expect((await again.exited).code).toBe(0)

    const store = new ChdbStore({ path: dir, poolSize: 1 })
    const perBatch = await store.query<{ b: string; n: number; uniq: number }>(
      "SELECT splitByChar('-', trade_id)[1] AS b, count() AS n, uniqExact(trade_id) AS uniq FROM trades GROUP BY b"
    )
    const found = new Map(perBatch.map((r) => [Number(r.b.slice(1)), r]))
    for (const i of acked) expect(found.get(i), `acknowledged batch ${i}`).toEqual({ b: `b${i}`, n: ROWS, uniq: ROWS })
    for (const [i, r] of found) {
      expect(sent.has(i)).toBe(true)
      expect(r.n).toBe(ROWS) // whole or absent, never partial or doubled
    }
    const [raw] = await store.query<{ n: number }>('SELECT count() AS n FROM trades')
    for (const view of ['candles_1m', 'candles_1h', 'candles_1d']) {
      const [v] = await store.query<{ n: number }>(`SELECT sum(trades) AS n FROM ${view}`)
      expect(v!.n, view).toBe(raw!.n)
    }
    expect(acked.size).toBeGreaterThanOrEqual(12)
    await store.close()
    cleanup()
  })
})
