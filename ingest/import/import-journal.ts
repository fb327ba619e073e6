/**
 * @module
 * Write-ahead journal of import statements, the import's counterpart of the live pipeline's batch journal
 * (ingest/journal.ts). ClickHouse commits a raw table's part and each view's part separately, so a process
 * killed during a slice's `INSERT ... SELECT FROM <staging table>` can leave the slice in the raw table with
 * some candle (or funding, OI) levels missing. Before each statement runs, its entry is written under
 * `DATA_DIR/journal/import/<entry>/`:
 *
 * - `slice.csv`: a hard link to the staged file the staging table was loaded from (a copy across file
 *   systems), kept until acknowledged: a staging table in memory does not outlive the process;
 * - `keys.native`: the keys the store held before the statement (coverage.ts), which the statement reads
 *   instead of the live tables, so the statement is a pure function of its entry;
 * - `entry.json`: the statement text, its bound parameters, its dedup token and the statement that loads
 *   the staging table from `slice.csv`, written last (renamed into place): an entry without it was never sent.
 *
 * Once the store acknowledged the statement the entry is removed. At the next start (server start, a CLI
 * import on the data directory, and before every import run) leftover entries are run again, identical,
 * with their original `insert_deduplication_token`, after their staging table is loaded again from the
 * entry's file (the same rows): parts already written are deduplicated (raw table and every view,
 * `deduplicate_blocks_in_dependent_materialized_views`), missing view parts are completed, so the slice
 * ends up whole, exactly once. Staging tables left by a crash are dropped after the replays. Files are not
 * fsynced: this covers process crashes, not power loss.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../../engine/log.js'
import { toStoreError } from '../../engine/store/store-error.js'
import type { Params, Store } from '../../engine/store/store.js'
import { backoffMs, sleep } from '../../engine/runtime/backoff.js'
import { sqlString } from '../../engine/store/sql-text.js'
import { journalEntries, journalName, replayEntries, setAside } from '../../engine/journal/replay.js'

/**
 * Prefix of the staging tables an import creates (stage-file.ts), one per file read; the ones a crash
 * leaves are dropped at the next start. Declared here so that the start's replay does not load the reader.
 */
export const STAGE_PREFIX = 'import_stage_'

/** The journal directory of imports under a data directory. */
export function importJournalDir(dataDir: string): string {
  return path.join(dataDir, 'journal', 'import')
}

const ENTRY = 'entry.json'
/** Written into an entry whose statement failed with an error (not a crash): `{ "at": epoch ms }`. */
const FAILED = 'failed.json'
/** Where entries too old to replay safely are moved, beside the journal. */
const ABANDONED = 'abandoned'

/** Attempts of a statement that fails with a retryable error before the import gives up. */
const ATTEMPTS = 4
/**
 * A failed entry older than this is not replayed, ms. Replays rely on ClickHouse remembering the statement's
 * dedup token, and a table remembers only its last 1,000 insert blocks (DEDUP_WINDOW, engine/schema/ddl.ts):
 * live ingest writes about one block a second per table, so after ~17 minutes a replay of a statement that
 * was partly written would write it twice. Crash entries have no `failed.json`: nothing ran on the data
 * directory since the crash, so their replay at the next start is always safe.
 */
export const FAILED_REPLAY_MAX_AGE_MS = 5 * 60_000

/** What is needed to redo one import statement exactly. */
export interface JournaledStatement {
  /** the target table, for logs */
  readonly table: string
  /** its `insert_deduplication_token` (also inside `sql`), for logs */
  readonly token: string
  readonly sql: string
  readonly params: Params
  /**
   * The entry's directory when it was recorded (absent in entries of older versions). The statement names
   * the entry's files by absolute path; a data directory moved since is rewritten to the entry's new place.
   */
  readonly dir?: string
  /**
   * The staging table `sql` reads, and the statement creating and loading it from the entry's `slice.csv`
   * (stage-sql.ts): a replay loads it first (it may be gone with the process) and drops it after.
   */
  readonly stage?: { readonly table: string; readonly load: string }
}

/** An entry being prepared: its files exist, its statement is not recorded yet. */
export interface OpenEntry {
  readonly dir: string
  /** the entry's own link to the slice file: statements read this path */
  readonly slice: string
  /** where the coverage keys go */
  readonly keys: string
}

export class ImportJournal {
  private seq = 0

  constructor(private readonly dir: string) {}

  /** Creates an entry holding its own link to `sliceFile` (the staged file a statement's rows come from). */
  open(sliceFile: string): OpenEntry {
    fs.mkdirSync(this.dir, { recursive: true })
    const dir = path.join(this.dir, journalName(this.seq++, 6))
    fs.mkdirSync(dir)
    const slice = path.join(dir, 'slice.csv')
    try {
      fs.linkSync(sliceFile, slice)
    } catch {
      fs.copyFileSync(sliceFile, slice) // another file system, or links not supported
    }
    return { dir, slice, keys: path.join(dir, 'keys.native') }
  }

  /**
   * Records the statement, runs it, removes the entry once acknowledged. A retryable failure is retried at
   * once (ATTEMPTS, with backoff), while the tables still remember the token; a statement that still fails
   * keeps its entry, marked failed, and the error is thrown.
   */
  async run(store: Store, entry: OpenEntry, stmt: JournaledStatement): Promise<void> {
    const file = path.join(entry.dir, ENTRY)
    await fs.promises.writeFile(`${file}.tmp`, JSON.stringify({ ...stmt, dir: entry.dir }))
    await fs.promises.rename(`${file}.tmp`, file)
    for (let attempt = 1; ; attempt++) {
      try {
        await store.command(stmt.sql, stmt.params)
        break
      } catch (err) {
        if (attempt >= ATTEMPTS || !toStoreError(err).retryable) {
          await fs.promises.writeFile(path.join(entry.dir, FAILED), JSON.stringify({ at: Date.now() }))
          throw err
        }
        await sleep(backoffMs(attempt))
      }
    }
    await fs.promises.rm(entry.dir, { recursive: true, force: true })
  }

  /** Removes an entry whose statement was never recorded (a failure while preparing it). */
  discard(entry: OpenEntry): void {
    fs.rmSync(entry.dir, { recursive: true, force: true })
  }

  /**
   * Runs again every statement a previous run left unacknowledged, in the order they were made; returns
   * how many. A failing statement stops the recovery with an error naming its entry (it stays, and is
   * tried again at the next start).
   */
  async recover(store: Store, log: Logger): Promise<number> {
    const dirs = journalEntries(this.dir, () => true).map((name) => path.join(this.dir, name))
    const replayed = await replayEntries(
      dirs,
      {
        read: (dir) => {
          const file = path.join(dir, ENTRY)
          return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as JournaledStatement) : null
        },
        apply: async (stmt, dir) => {
          const failedAt = failedAtMs(dir)
          if (failedAt !== null && Date.now() - failedAt > FAILED_REPLAY_MAX_AGE_MS) {
            // too old to rely on the dedup token: set aside, never replayed (see FAILED_REPLAY_MAX_AGE_MS)
            const aside = await setAside(dir, path.join(path.dirname(this.dir), ABANDONED))
            log.error(
              { entry: aside, table: stmt.table, token: stmt.token },
              'an import statement that failed long ago was not replayed (it could be written twice); ' +
                'run the import of its file again to complete it'
            )
            return 'set-aside'
          }
          try {
            if (stmt.stage) {
              await store.command(`DROP TABLE IF EXISTS ${stmt.stage.table}`)
              await store.command(relocated(stmt, stmt.stage.load, dir))
            }
            await store.command(relocated(stmt, stmt.sql, dir), stmt.params)
            if (stmt.stage) await store.command(`DROP TABLE IF EXISTS ${stmt.stage.table}`)
          } catch (err) {
            throw new Error(
              `replaying the interrupted import statement in ${dir} (table ${stmt.table}) failed; ` +
                `it is kept and tried again at the next start (remove the directory to give it up)`,
              { cause: err }
            )
          }
        },
        // no failedDir: a statement that fails stops the recovery (kept for the next start)
        messages: {
          incomplete: 'import journal entry without a statement: it was never sent, removing it',
          replayed: 'replayed an interrupted import statement from the journal'
        },
        describe: (stmt) => ({ table: stmt.table, token: stmt.token })
      },
      log
    )
    await dropStages(store)
    return replayed.length
  }
}

/**
 * Drops staging tables no import uses any more: a crash leaves them (a `Memory` one empty, its definition
 * kept), and this runs before an import run starts or at a start, when no import is running.
 */
async function dropStages(store: Store): Promise<void> {
  const rows = await store.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = currentDatabase() AND startsWith(name, {prefix:String})`,
    { prefix: STAGE_PREFIX }
  )
  for (const { name } of rows) await store.command(`DROP TABLE IF EXISTS ${name}`)
}

/**
 * `sql` (the entry's statement or its staging load) with the entry's recorded directory replaced by where
 * the entry is now (a data directory moved between a crash and the restart). Paths are SQL string literals (sql-text.ts), so the
 * escaped form of the old directory, followed by a separator, is what is replaced; the directory name is
 * unique (time, pid, sequence), so nothing else matches.
 */
function relocated(stmt: JournaledStatement, sql: string, dir: string): string {
  if (stmt.dir === undefined || stmt.dir === dir) return sql
  const inLiteral = (p: string) => sqlString(p + path.sep).slice(1, -1)
  return sql.split(inLiteral(stmt.dir)).join(inLiteral(dir))
}

/** When the entry's statement failed with an error (epoch ms), or null for an entry left by a crash. */
function failedAtMs(dir: string): number | null {
  try {
    const at = (JSON.parse(fs.readFileSync(path.join(dir, FAILED), 'utf8')) as { at?: unknown }).at
    return typeof at === 'number' ? at : null
  } catch {
    return null
  }
}
