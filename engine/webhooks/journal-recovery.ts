/**
 * @module
 * Journal segments of the outbox (journal.ts): their header, their load into the store, and at start the
 * load of every segment a previous process left behind (killed before, during or after a load).
 *
 * A segment file is one JSON header line (table, columns, dedup token, how it is loaded) and then TSV rows.
 * The token is fixed when the segment is created, so loading a segment twice (a crash after its insert,
 * before its file was removed) stores its rows once (the tables' insert dedup window, schemas/). A last
 * line cut short by a crash during its own write is cut off before the load: its write never returned,
 * so nothing depended on it (a delivery row's attempts start only after it, an attempt row's delivery is
 * still pending in the store and is attempted again).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../log.js'
import type { Store } from '../store/store.js'
import { insertKept, insertVia, type InsertVia } from '../store/file-insert.js'
import { toStoreError } from '../store/store-error.js'

export interface SegmentHeader {
  readonly table: string
  readonly columns: readonly string[]
  readonly dedupToken: string
  /**
   * `file`: the store reads the segment itself (`Store.insertFile`); `inline`: its bytes are sent. A retry
   * takes the same way: the dedup block ids of a token differ between the two.
   */
  readonly via: InsertVia
}

export function segmentHeader(store: Store, table: string, columns: readonly string[], file: string): SegmentHeader {
  return { table, columns, dedupToken: `${table}:journal:${path.basename(file)}`, via: insertVia(store, file) }
}

/** Inserts the rows of one segment file (every line after the header) the way its header says. */
export async function loadSegment(store: Store, header: SegmentHeader, file: string): Promise<void> {
  const batch = { table: header.table, columns: header.columns, format: 'TSV' as const, dedupToken: header.dedupToken }
  await insertKept(store, batch, file, 1, header.via, () => {
    const buf = fs.readFileSync(file)
    return buf.subarray(buf.indexOf(10) + 1)
  })
}

/** Moves a segment the store refuses to `failed/` beside it (kept for inspection, never loaded again). */
export function setAside(file: string): void {
  const failed = path.join(path.dirname(file), 'failed')
  fs.mkdirSync(failed, { recursive: true })
  fs.renameSync(file, path.join(failed, path.basename(file)))
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
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return 0
  }
  const files = names.filter((f) => f.startsWith(`${table}.`) && f.endsWith('.tsv') && !f.startsWith(ownPrefix)).sort()
  let rows = 0
  for (const name of files) {
    const file = path.join(dir, name)
    const header = readWholeLines(file)
    if (header === null) {
      log.warn({ file }, 'webhook journal segment without rows or header (cut short by a crash); removing it')
      fs.rmSync(file, { force: true })
      continue
    }
    try {
      await loadSegment(store, header.header, file)
    } catch (err) {
      if (toStoreError(err).retryable) throw err
      setAside(file)
      log.error({ file, err: (err as Error).message }, 'webhook journal segment refused by the store; moved to failed/')
      continue
    }
    fs.rmSync(file, { force: true })
    rows += header.rows
    log.warn({ table, rows: header.rows, file: name }, 'loaded a webhook journal segment left by the previous run')
  }
  return rows
}

/**
 * The header of a segment file, after cutting a partial last line off the file; null when it has no
 * complete header or no complete row.
 */
function readWholeLines(file: string): { header: SegmentHeader; rows: number } | null {
  const buf = fs.readFileSync(file)
  const nl = buf.indexOf(10)
  if (nl < 0) return null
  let header: SegmentHeader
  try {
    header = JSON.parse(buf.subarray(0, nl).toString('utf8')) as SegmentHeader
  } catch {
    return null
  }
  const end = buf.lastIndexOf(10) + 1
  if (end < buf.length) fs.truncateSync(file, end)
  let rows = 0
  for (let i = nl + 1; i < end; i++) if (buf[i] === 10) rows++
  return rows === 0 ? null : { header, rows }
}
