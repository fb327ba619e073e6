/**
 * @module
 * Journal segments of the outbox (journal.ts): their header, their load into the store, and at start the
 * load of every segment a previous process left behind (killed before, during or after a load), on the
 * service's journal format and recovery (engine/journal/).
 *
 * A segment file is one JSON header line (table, columns, dedup token, how it is loaded) and then TSV rows.
 * The token is fixed when the segment is created, so loading a segment twice (a crash after its insert,
 * before its file was removed) stores its rows once (the tables' insert dedup window, schemas/). A last
 * line cut short by a crash during its own write is cut off before the load: its write never returned,
 * so nothing depended on it (a delivery row's attempts start only after it, an attempt row's delivery is
 * still pending in the store and is attempted again).
 */
import path from 'node:path'
import type { Logger } from '../log.js'
import type { Store } from '../store/store.js'
import { insertVia, type InsertVia } from '../store/file-insert.js'
import { loadEntryFile, readEntryFile, type EntryHeader } from '../journal/entry-file.js'
import { journalEntries, replayEntries } from '../journal/replay.js'

/** Where segments the store refuses go, beside the segments (kept for inspection, never loaded again). */
export const SEGMENTS_FAILED_DIR = 'failed'

/** A segment's header: appended lines, so no `bytes`; `via` always written. */
export interface SegmentHeader extends EntryHeader {
  readonly via: InsertVia
}

export function segmentHeader(store: Store, table: string, columns: readonly string[], file: string): SegmentHeader {
  return { table, columns, dedupToken: `${table}:journal:${path.basename(file)}`, via: insertVia(store, file) }
}

/** Inserts the rows of one segment file (every line after the header) the way its header says. */
export function loadSegment(store: Store, header: SegmentHeader, file: string): Promise<void> {
  return loadEntryFile(store, header, file)
}

/**
 * Loads the segments of `table` in `dir` that this process did not write (`ownPrefix`), oldest first, and
 * removes each once stored. A store that is down throws (the caller retries later; the files stay); a
 * segment the store refuses (bad data) moves to `failed/`, kept for inspection. Returns the rows loaded.
 */
export async function recoverSegments(
  store: Store,
  dir: string,
  table: string,
  ownPrefix: string,
  log: Logger
): Promise<number> {
  const names = journalEntries(dir, (f) => f.startsWith(`${table}.`) && f.endsWith('.tsv') && !f.startsWith(ownPrefix))
  const loaded = await replayEntries(
    names.map((name) => path.join(dir, name)),
    {
      read: (file) => readEntryFile<SegmentHeader>(file),
      apply: ({ header, payload }, file) => loadEntryFile(store, header, file, () => payload),
      failedDir: path.join(dir, SEGMENTS_FAILED_DIR),
      messages: {
        incomplete: 'webhook journal segment without rows or header (cut short by a crash); removing it',
        refused: 'webhook journal segment refused by the store; moved to failed/',
        replayed: 'loaded a webhook journal segment left by the previous run'
      },
      describe: ({ lines }, file) => ({ table, rows: lines, file: path.basename(file) })
    },
    log
  )
  return loaded.reduce((rows, s) => rows + s.lines, 0)
}
