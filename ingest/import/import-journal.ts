/**
 * @module
 * Write-ahead journal of import statements, the import's counterpart of the live pipeline's batch journal
 * (ingest/journal.ts). ClickHouse commits a raw table's part and each view's part separately, so a process
 * killed during a slice's `INSERT ... SELECT FROM file()` can leave the slice in the raw table with some
 * candle (or funding, OI) levels missing. Before each statement runs, its entry is written under
 * `DATA_DIR/journal/import/<entry>/`:
 *
 * - `slice.csv`: a hard link to the slice file (a copy across file systems), kept until acknowledged;
 * - `keys.native`: the keys the store held before the statement (coverage.ts), which the statement reads
 *   instead of the live tables, so the statement is a pure function of its entry;
 * - `entry.json`: the statement text, its bound parameters and its dedup token, written last (renamed into
 *   place): an entry without it was never sent.
 *
 * Once the store acknowledged the statement the entry is removed. At the next start (server start, a CLI
 * import on the data directory, and before every import run) leftover entries are run again, identical,
 * with their original `insert_deduplication_token`: parts already written are deduplicated (raw table and
 * every view, `deduplicate_blocks_in_dependent_materialized_views`), missing view parts are completed, so
 * the slice ends up whole, exactly once. Files are not fsynced: this covers process crashes, not power loss.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../../engine/log.js'
import type { Params, Store } from '../../engine/store/store.js'

/** The journal directory of imports under a data directory. */
export function importJournalDir(dataDir: string): string {
  return path.join(dataDir, 'journal', 'import')
}

const ENTRY = 'entry.json'

/** What is needed to redo one import statement exactly. */
export interface JournaledStatement {
  /** the target table, for logs */
  readonly table: string
  /** its `insert_deduplication_token` (also inside `sql`), for logs */
  readonly token: string
  readonly sql: string
  readonly params: Params
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

  /** Creates an entry holding its own link to `sliceFile`. */
  open(sliceFile: string): OpenEntry {
    fs.mkdirSync(this.dir, { recursive: true })
    const dir = path.join(this.dir, `${Date.now()}-${process.pid}-${String(this.seq++).padStart(6, '0')}`)
    fs.mkdirSync(dir)
    const slice = path.join(dir, 'slice.csv')
    try {
      fs.linkSync(sliceFile, slice)
    } catch {
      fs.copyFileSync(sliceFile, slice) // another file system, or links not supported
    }
    return { dir, slice, keys: path.join(dir, 'keys.native') }
  }

  /** Records the statement, runs it, removes the entry once acknowledged (kept when the statement fails). */
  async run(store: Store, entry: OpenEntry, stmt: JournaledStatement): Promise<void> {
    const file = path.join(entry.dir, ENTRY)
    await fs.promises.writeFile(`${file}.tmp`, JSON.stringify(stmt))
    await fs.promises.rename(`${file}.tmp`, file)
    await store.command(stmt.sql, stmt.params)
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
    if (!fs.existsSync(this.dir)) return 0
    let replayed = 0
    for (const name of fs.readdirSync(this.dir).sort()) {
      const dir = path.join(this.dir, name)
      const file = path.join(dir, ENTRY)
      if (!fs.existsSync(file)) {
        log.warn({ entry: dir }, 'import journal entry without a statement: it was never sent, removing it')
        fs.rmSync(dir, { recursive: true, force: true })
        continue
      }
      const stmt = JSON.parse(fs.readFileSync(file, 'utf8')) as JournaledStatement
      try {
        await store.command(stmt.sql, stmt.params)
      } catch (err) {
        throw new Error(
          `replaying the interrupted import statement in ${dir} (table ${stmt.table}) failed; ` +
            `it is kept and tried again at the next start (remove the directory to give it up)`,
          { cause: err }
        )
      }
      fs.rmSync(dir, { recursive: true, force: true })
      replayed++
      log.warn({ table: stmt.table, token: stmt.token }, 'replayed an interrupted import statement from the journal')
    }
    return replayed
  }
}
