/**
 * @module
 * The storage module, opened first and stopped last: the data directory's lock, the store, its migrations,
 * the batches and import statements an interrupted run left in the journals, and the admin token.
 */
import path from 'node:path'
import type { Logger } from '../../engine/log.js'
import { migrate } from '../../engine/schema/migrate.js'
import { prepareDataDir } from '../../engine/store/chdb/data-dir.js'
import { openStore } from '../../engine/store/open-store.js'
import type { Store } from '../../engine/store/store.js'
import { candleRepair } from '../../engine/history/candle-repair.js'
import { BatchJournal, REPLAY_BY_HAND } from '../../ingest/journal.js'
import { ViewRepairs } from '../../ingest/view-repairs.js'
import { ImportJournal, importJournalDir } from '../../ingest/import/import-journal.js'
import { ensureAdminToken } from '../admin-token.js'
import type { Config } from '../config.js'
import type { ServiceModule } from './service-module.js'

/** Test seams of `start` (fault injection); production passes none. */
export interface StartHooks {
  /** wraps the opened store, e.g. to make every call fail for a while (test/helpers/flaky-store.ts, `down`) */
  readonly wrapStore?: (store: Store) => Store
  /**
   * the signal engine's clock, epoch ms (default `Date.now`): a test holds it to land several records between
   * two evaluations of a base, whatever the machine's load
   */
  readonly signalClock?: () => number
}

export interface Storage extends ServiceModule {
  readonly store: Store
  readonly journal: BatchJournal
  /** repairs of views of raw rows that may have been inserted in part (a full disk, a crash) */
  readonly repairs: ViewRepairs
  readonly adminToken: string
}

export async function openStorage(config: Config, log: Logger, hooks: StartHooks): Promise<Storage> {
  const releaseLock = prepareDataDir(config.dataDir)
  const opened = await openStore(config)
  const store = hooks.wrapStore ? hooks.wrapStore(opened) : opened
  const stop = async (): Promise<void> => {
    await store.close()
    releaseLock()
  }
  try {
    const applied = await migrate(store, { cluster: config.clickhouseCluster })
    if (applied.length > 0) log.info({ applied }, 'schema migrations applied')
  } catch (err) {
    await stop()
    throw err
  }
  const admin = ensureAdminToken(config.adminToken, config.dataDir)
  if (admin.generated) log.warn({ file: admin.file, admin_token: admin.token }, 'generated ADMIN_TOKEN (shown once)')
  const journalDir = path.join(config.dataDir, 'journal')
  const repairs = new ViewRepairs(journalDir, { trades: candleRepair(store) }, log.child({ mod: 'repair' }))
  const journal = new BatchJournal(journalDir, repairs)
  const replayed = await journal.recover(store, log)
  if (replayed > 0) log.warn({ batches: replayed }, 'completed batches interrupted by the last stop')
  const setAside = journal.failedEntries()
  if (setAside > 0) log.error({ batches: setAside, dir: path.join(journalDir, 'failed') }, REPLAY_BY_HAND)
  const imports = await new ImportJournal(importJournalDir(config.dataDir)).recover(store, log)
  if (imports > 0) log.warn({ statements: imports }, 'completed import statements interrupted by the last stop')
  return { name: 'storage', store, journal, repairs, adminToken: admin.token, stop }
}
