/**
 * @module
 * `tidewatch import` without a server: opens the data directory itself (taking its lock, so a server
 * cannot start on it meanwhile), applies migrations, imports, closes. The embedded engine is loaded only
 * here, after TZ is pinned to UTC.
 */
import path from 'node:path'
import { silentLogger } from '../engine/log.js'
import { migrate } from '../engine/schema/migrate.js'
import { prepareDataDir } from '../engine/store/chdb/data-dir.js'
import { ImportJournal, importJournalDir } from '../ingest/import/import-journal.js'
import type { FileResult, ImportOptions } from '../ingest/import/run-import.js'
import { importFiles } from '../ingest/import/run-import.js'
import { compactPartitions, rangeOf } from '../engine/store/compact.js'
import { CANDLE_COMPACTION } from '../engine/history/candle-compaction.js'
import { BatchJournal } from '../ingest/journal.js'

/**
 * Imports `files` into the data directory. First, as the server does at start, it completes what the last
 * process on the directory left in its journals (live batches and import statements; `onReplayed` gets
 * how many), so the import's coverage judges a whole store.
 */
export async function importLocal(
  dataDir: string,
  releaseLock: () => void,
  files: readonly string[],
  opts: Omit<ImportOptions, 'tmpDir' | 'journalDir'>,
  onReplayed?: (statements: number) => void
): Promise<FileResult[]> {
  process.env['TZ'] = 'UTC'
  try {
    const { ChdbStore } = await import('../engine/store/chdb/chdb-store.js')
    const store = new ChdbStore({ path: dataDir, poolSize: 2 })
    try {
      await migrate(store, {})
      const log = silentLogger()
      const replayed =
        (await new BatchJournal(path.join(dataDir, 'journal')).recover(store, log)) +
        (await new ImportJournal(importJournalDir(dataDir)).recover(store, log))
      if (replayed > 0) onReplayed?.(replayed)
      const results = await importFiles(store, files, {
        ...opts,
        tmpDir: path.join(dataDir, 'tmp', 'import'),
        journalDir: importJournalDir(dataDir)
      })
      // merge the candle partitions the load wrote and split, so exports need not (engine/store/compact.ts)
      const range = rangeOf(results)
      if (range) await compactPartitions(store, CANDLE_COMPACTION, { range })
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
