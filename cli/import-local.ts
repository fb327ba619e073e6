/**
 * @module
 * `tidewatch import` without a server: opens the data directory itself (taking its lock, so a server
 * cannot start on it meanwhile), applies migrations, imports, closes. The embedded engine is loaded only
 * here, after TZ is pinned to UTC.
 */
import path from 'node:path'
import { migrate } from '../engine/schema/migrate.js'
import { prepareDataDir } from '../engine/store/chdb/data-dir.js'
import type { FileResult, ImportOptions } from '../ingest/import/run-import.js'
import { importFiles } from '../ingest/import/run-import.js'
import { compactCandles } from '../engine/store/compact.js'

export async function importLocal(
  dataDir: string,
  releaseLock: () => void,
  files: readonly string[],
  opts: Omit<ImportOptions, 'tmpDir'>
): Promise<FileResult[]> {
  process.env['TZ'] = 'UTC'
  try {
    const { ChdbStore } = await import('../engine/store/chdb/chdb-store.js')
    const store = new ChdbStore({ path: dataDir, poolSize: 2 })
    try {
      await migrate(store, {})
      const results = await importFiles(store, files, { ...opts, tmpDir: path.join(dataDir, 'tmp', 'import') })
      // merge the candle partitions the load split, so exports need not (engine/store/compact.ts)
      await compactCandles(store)
      return results
    } finally {
      await store.close()
    }
  } finally {
    releaseLock()
  }
}

/** Takes the data directory's lock; null when a live process (the server) holds it. */
export function tryLock(dataDir: string): (() => void) | null {
  try {
    return prepareDataDir(dataDir)
  } catch (err) {
    if (err instanceof Error && /is in use by process/.test(err.message)) return null
    throw err
  }
}
