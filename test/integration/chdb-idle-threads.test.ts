/**
 * The embedded engine keeps at most ENGINE_IDLE_THREADS idle threads in its global thread pool: after a
 * burst of parallel work grows the pool past it, the extra threads exit instead of staying resident with
 * their stacks and allocator caches (docs/benchmarks.md, "Memory soak").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChdbStore, ENGINE_IDLE_THREADS } from '../../engine/store/chdb/chdb-store.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const tmp = tmpDir()
let store: ChdbStore

beforeAll(() => {
  store = new ChdbStore({ path: tmp.dir, poolSize: 4 })
})
afterAll(async () => {
  await store.close()
  tmp.cleanup()
})

async function pool(): Promise<{ threads: number; active: number }> {
  const rows = await store.query<{ metric: string; value: number }>(
    "SELECT metric, value FROM system.metrics WHERE metric IN ('GlobalThread', 'GlobalThreadActive')"
  )
  const get = (m: string): number => Number(rows.find((r) => r.metric === m)?.value ?? 0)
  return { threads: get('GlobalThread'), active: get('GlobalThreadActive') }
}

describe('embedded engine thread pool', () => {
  it('lets threads beyond the idle bound exit after a burst', async () => {
    // 4 queries of 32 threads each at once: the pool grows well past the bound
    const burst = 'SELECT sum(number) AS s FROM numbers_mt(20000000) SETTINGS max_threads = 32, max_block_size = 65536'
    await Promise.all(Array.from({ length: 4 }, () => store.query(burst)))
    let p = await pool()
    for (let i = 0; i < 100 && p.threads - p.active > ENGINE_IDLE_THREADS; i++) {
      await new Promise((r) => setTimeout(r, 100))
      p = await pool()
    }
    expect(p.threads - p.active).toBeLessThanOrEqual(ENGINE_IDLE_THREADS)
  })
})
