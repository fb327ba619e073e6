/**
 * @module
 * The file format of the service's batch journals (docs/architecture.md, "Journals"): one JSON header line,
 * then the payload as the store reads it (TSV, or another `InsertBatch` format). Both journals that keep
 * rows write it: the ingest journal (ingest/journal.ts) one file per batch, written whole; the webhook
 * outbox (engine/webhooks/journal.ts) one segment per table, appended line by line, then sealed.
 *
 * A file is complete when:
 * - its header has `bytes` (a batch written whole): the payload is exactly that long; otherwise the write
 *   was cut short by a crash and the batch was never sent;
 * - its header has no `bytes` (a segment of appended lines): every whole line is; a last line cut short by a
 *   crash during its own write is cut off the file (its write never returned, so nothing depended on it).
 *
 * A file is loaded with its header's dedup token and the same way it was first sent (`via`), so a load
 * repeated after a crash stores its rows once (engine/store/file-insert.ts).
 */
import fs from 'node:fs'
import { newlines } from '../runtime/line-count.js'
import type { InsertBatch, Store } from '../store/store.js'
import { insertKept, type InsertVia } from '../store/file-insert.js'

/** The header line of a journal file. Field order is the order each writer gives (kept byte for byte). */
export interface EntryHeader {
  readonly table: string
  readonly columns: readonly string[]
  /** the payload's format. Absent: TSV */
  readonly format?: InsertBatch['format']
  readonly dedupToken: string
  /** payload length of a file written whole, bytes; absent in a file of appended lines */
  readonly bytes?: number
  /**
   * `file`: the store reads the file itself (`Store.insertFile`); `inline`: its bytes are sent. Absent:
   * inline. A retry takes the same way: the dedup block ids of a token differ between the two.
   */
  readonly via?: InsertVia
  /** the batch was sent with `foldKeys` (engine/store/store.ts), and is replayed so */
  readonly foldKeys?: true
}

/** The header as the file's first line. */
export function headerLine(header: EntryHeader): Buffer {
  return Buffer.from(JSON.stringify(header) + '\n')
}

/** A complete journal file: its header, its payload and the payload's lines. */
export interface EntryFile<H extends EntryHeader = EntryHeader> {
  readonly header: H
  readonly payload: Buffer
  /** newline-terminated lines in the payload (rows, for TSV) */
  readonly lines: number
}

/**
 * Reads a journal file; null when it is incomplete (see the module comment: never sent, or no whole row).
 * A file of appended lines loses its partial last line, on disk too, so the store reads whole rows only.
 */
export function readEntryFile<H extends EntryHeader = EntryHeader>(file: string): EntryFile<H> | null {
  const buf = fs.readFileSync(file)
  const nl = buf.indexOf(10)
  if (nl < 0) return null
  let header: H
  try {
    header = JSON.parse(buf.subarray(0, nl).toString('utf8')) as H
  } catch {
    return null
  }
  if (header === null || typeof header !== 'object') return null
  if (header.bytes !== undefined) {
    const payload = buf.subarray(nl + 1)
    return header.bytes === payload.byteLength ? { header, payload, lines: newlines(payload) } : null
  }
  const end = buf.lastIndexOf(10) + 1
  if (end < buf.length) fs.truncateSync(file, end)
  const payload = buf.subarray(nl + 1, end)
  const lines = newlines(payload)
  return lines === 0 ? null : { header, payload, lines }
}

/** A file's payload: what follows its header line. */
export function payloadOf(entry: Buffer): Buffer {
  return entry.subarray(entry.indexOf(10) + 1)
}

/**
 * Inserts the journal file `file` the way its header says it was first sent; `data` gives the payload,
 * read only for an inline insert.
 */
export async function loadEntryFile(
  store: Store,
  header: EntryHeader,
  file: string,
  data: () => Buffer = () => payloadOf(fs.readFileSync(file))
): Promise<void> {
  const batch = {
    table: header.table,
    columns: header.columns,
    format: header.format ?? ('TSV' as const),
    dedupToken: header.dedupToken,
    ...(header.foldKeys && { foldKeys: true as const })
  }
  await insertKept(store, batch, file, 1, header.via ?? 'inline', data)
}
