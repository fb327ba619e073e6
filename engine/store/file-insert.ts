/**
 * @module
 * Inserts of batches kept in files (the ingest journal's entries, the webhook outbox's journal segments,
 * chain event batches): the engine reads such a file itself (`Store.insertFile`, chDB: no copy of the bytes
 * through the binding) unless the store cannot, or the path holds a character ClickHouse's `file()` would
 * expand as a glob; then the bytes are sent inline. Whichever way a batch went first, a retry must go the
 * same way: the dedup block ids of a token differ between the two.
 */
import type { FileInsert, Store } from './store.js'

/** Characters ClickHouse's `file()` expands as globs (`*`, `?`, `{a,b}`, `[...]`). */
const GLOB = /[*?{}[\]]/

/** How a batch kept in a file is inserted: `file`, the engine reads it; `inline`, its bytes are sent. */
export type InsertVia = 'file' | 'inline'

/** `file` when the store reads files itself and `file` (a path, or the directory files go in) is no glob. */
export function insertVia(store: Store, file: string): InsertVia {
  return store.insertFile !== undefined && !GLOB.test(file) ? 'file' : 'inline'
}

/**
 * Inserts the batch whose payload is in `file` after `skipLines` header lines, the way `via` says; `data`
 * gives the payload (without the header lines) and is called only for an inline insert.
 */
export async function insertKept(
  store: Store,
  batch: Omit<FileInsert, 'file' | 'skipLines'>,
  file: string,
  skipLines: number,
  via: InsertVia,
  data: () => Buffer
): Promise<void> {
  if (via === 'file' && store.insertFile) await store.insertFile({ ...batch, file, skipLines })
  else await store.insert({ ...batch, data: data() })
}
