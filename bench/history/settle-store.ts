/**
 * @module
 * Opens a stopped server's data dir in this process and waits until the engine has removed the outdated
 * parts the run left on disk (parts replaced by merges, kept `old_parts_lifetime` = 8 min by a running
 * server), then closes it. A store opened on a dir that still holds them removes them all at its first
 * cleanup pass, ~30 s after opening: ~2,100 parts after the demo backfill, 1-2 CPU-s in the engine's
 * cleaner threads. Settling the dir once before it is copied keeps that pass out of every process opened
 * on the copies, whose exports are measured (realistic-export.ts).
 *
 * Usage: node dist/bench/history/settle-store.js <dataDir>; prints one JSON line:
 * `{ outdatedMost, outdatedLeft, waitedS }` (the most outdated parts seen, those left, seconds waited).
 */
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'

/** longest wait for the cleanup pass, ms (it runs every ~30 s while any part is outdated) */
const SETTLE_MAX_MS = 120_000
const POLL_MS = 500

async function outdated(store: ChdbStore): Promise<number> {
  const rows = await store.query<{ n: number | string }>(
    'SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND NOT active'
  )
  return Number(rows[0]?.n ?? 0)
}

async function main(dir: string): Promise<void> {
  const store = new ChdbStore({ path: dir, poolSize: 1 })
  const t0 = Date.now()
  try {
    // the engine loads outdated parts in the background after opening: wait for every table's loading, so
    // that the count is complete before it is polled down to 0
    const tables = await store.query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree'"
    )
    for (const t of tables) await store.query(`SYSTEM WAIT LOADING PARTS \`${t.name.replace(/`/g, '')}\``)
    let left = await outdated(store)
    let most = left
    while (left > 0 && Date.now() - t0 < SETTLE_MAX_MS) {
      await new Promise((r) => setTimeout(r, POLL_MS))
      left = await outdated(store)
      most = Math.max(most, left)
    }
    process.stdout.write(
      JSON.stringify({ outdatedMost: most, outdatedLeft: left, waitedS: (Date.now() - t0) / 1000 }) + '\n'
    )
  } finally {
    await store.close()
  }
}

await main(process.argv[2]!)
