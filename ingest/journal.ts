/**
 * @module
 * Write-ahead journal of insert batches. ClickHouse commits a raw table's part and each materialized
 * view's part separately, so a process killed mid-insert can leave a batch in the raw table but missing
 * from a view. Every batch is therefore written to `DATA_DIR/journal` before its insert and removed once
 * the store acknowledged it; at start, entries left by a crash are replayed with their original dedup
 * tokens: parts already written are deduplicated, missing view parts are completed, so each batch ends
 * up whole. Files are not fsynced: this protects against a process crash (SIGKILL, OOM), not power loss.
 *
 * A batch may be written to the journal ahead of its insert (`prepare`, called by the batcher when it
 * seals a batch while the previous one is still being inserted), so the entry's write overlaps that insert
 * instead of delaying the next; the rules stay the same: one entry per dedup token, written completely
 * before the insert that reads it starts, removed only once that insert is acknowledged.
 *
 * A batch whose insert failed may have been applied in part (a full disk refuses one view's part after the
 * raw part and other views' parts were written), and a replay with the same token completes only what the
 * dedup windows let through. So once such a batch is written (a retry after a failed attempt, or a replay at
 * start), the time range of its rows is handed to `PartialWrites` before its entry is removed, and the views
 * derived from that range are rebuilt from the raw rows (ingest/view-repairs.ts).
 *
 * A batch that fails for good (bad data: not retryable) is moved to `failed/` and never replayed by itself:
 * an operator who fixed the cause moves the file back into the journal directory, and the next start
 * replays it (docs/deployment.md).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../engine/log.js'
import type { InsertBatch, Store } from '../engine/store/store.js'
import { insertVia } from '../engine/store/file-insert.js'
import type { TimeRange } from '../engine/store/compact.js'
import { headerLine, loadEntryFile, payloadOf, readEntryFile, type EntryHeader } from '../engine/journal/entry-file.js'
import { journalEntries, journalName, replayEntries, setAside } from '../engine/journal/replay.js'

/**
 * An entry's header (engine/journal/entry-file.ts): written whole, so `bytes` is always there (an entry cut
 * short by a crash during its own write was never sent and is dropped); `via` only when `file` (absent:
 * inline); `foldKeys` only when set.
 */
interface Header extends EntryHeader {
  readonly format: InsertBatch['format']
  readonly bytes: number
}

/**
 * A batch that may also give its payload as parts, in order (the batcher's chunks): `data` is then their
 * concatenation, which the journal never reads on the usual path (it writes the parts to the entry and the
 * store reads the entry), so a batch's bytes are not copied into one buffer only to be written out.
 */
export interface PartedBatch extends InsertBatch {
  readonly parts?: readonly Uint8Array[]
}

/** A batch's entry: its file and header, and the write of the file (resolved once it is complete). */
interface Entry {
  readonly file: string
  readonly header: Header
  readonly written: Promise<void>
  /** an insert of this entry failed: it may have been applied in part */
  attempted?: true
}

/** Where the time ranges of batches that may have been applied in part go (ingest/view-repairs.ts). */
export interface PartialWrites {
  /** whether views derived from `table` need a repair after a partial insert (else nothing is noted) */
  covers(table: string): boolean
  /** keeps (durably, before resolving) that rows of `table` in `range` may be missing from its views */
  note(table: string, range: TimeRange): Promise<void>
}

/** The directory (under the journal's) of entries that failed for good; see the module comment. */
export const FAILED_DIR = 'failed'

export class BatchJournal {
  private seq = 0
  private readonly dir: string
  /** entries of batches not yet acknowledged, by dedup token: a retry reuses its entry */
  private readonly unacknowledged = new Map<string, Entry>()

  constructor(
    dir: string,
    /** receives the ranges of batches written after a failed attempt or replayed (none: not tracked) */
    private readonly partial?: PartialWrites
  ) {
    this.dir = path.resolve(dir) // the store may read entries itself (insertFile): absolute paths
    fs.mkdirSync(this.dir, { recursive: true })
  }

  /** Entries set aside in `failed/` (never replayed by themselves), e.g. for `/v1/health`. */
  failedEntries(): number {
    try {
      return fs.readdirSync(path.join(this.dir, FAILED_DIR)).filter((f) => f.endsWith('.batch')).length
    } catch {
      return 0
    }
  }

  /**
   * Writes the batch to the journal (once per dedup token: a retry reuses the entry, so no stale copy is
   * left to replay after the tables' dedup window has forgotten the token), inserts it, then removes the
   * entry. A failed insert keeps its entry: the caller retries, or `abandon`s it, or a crash leaves it to
   * `recover`.
   */
  async insert(store: Store, batch: PartedBatch): Promise<void> {
    const entry = this.unacknowledged.get(batch.dedupToken) ?? this.write(store, batch)
    // a failed write has left the map: this insert fails, and the caller's retry writes the entry again
    await entry.written
    try {
      await loadEntryFile(store, entry.header, entry.file, () => batch.data)
    } catch (err) {
      entry.attempted = true
      throw err
    }
    // noted before the entry goes: a crash in between replays the entry, which notes the range again
    if (entry.attempted)
      await this.notePartial(entry.header, async () => payloadOf(await fs.promises.readFile(entry.file)))
    this.unacknowledged.delete(batch.dedupToken)
    await fs.promises.unlink(entry.file)
  }

  /** Hands the rows' time range of a batch that may have been applied in part to `partial`. */
  private async notePartial(header: Header, data: () => Promise<Buffer>): Promise<void> {
    if (!this.partial?.covers(header.table)) return
    const range = rowsRange(header.columns, await data())
    if (range) await this.partial.note(header.table, range)
  }

  /**
   * Starts writing the batch's entry now, ahead of its `insert` (which waits for the write to end), unless
   * the token has one already. Never throws or rejects: a failed write is reported by the `insert`.
   */
  prepare(store: Store, batch: PartedBatch): void {
    if (this.unacknowledged.has(batch.dedupToken)) return
    this.write(store, batch).written.catch(() => undefined)
  }

  /** Starts writing a new entry for the batch, registered under its token at once (so it is written once). */
  private write(store: Store, batch: PartedBatch): Entry {
    const file = path.join(this.dir, `${journalName(this.seq++)}.batch`)
    // the engine reads TSV entries itself, unless the path holds glob characters file() would expand
    const viaFile = batch.format === 'TSV' && insertVia(store, file) === 'file'
    const parts = batch.parts ?? [batch.data]
    const header: Header = {
      table: batch.table,
      columns: batch.columns,
      format: batch.format,
      dedupToken: batch.dedupToken,
      bytes: parts.reduce((n, part) => n + part.byteLength, 0),
      ...(viaFile && { via: 'file' as const }),
      ...(batch.foldKeys && { foldKeys: true as const })
    }
    const written = writeParts(file, [headerLine(header), ...parts])
    const entry: Entry = { file, header, written }
    this.unacknowledged.set(batch.dedupToken, entry)
    written.catch(() => {
      if (this.unacknowledged.get(batch.dedupToken) === entry) this.unacknowledged.delete(batch.dedupToken)
      // a write cut short (a full disk) leaves part of a file that nothing would send: it goes, freeing its room
      fs.promises.unlink(file).catch(() => undefined)
    })
    return entry
  }

  /**
   * The batch of `token` will not be retried (it failed with a non-retryable error; its rows are counted
   * as failed): its entry moves to `failed/` (kept for inspection and a replay by hand, see the module
   * comment). Resolves with the entry's new path (undefined: the batch had no entry).
   */
  async abandon(token: string): Promise<string | undefined> {
    const entry = this.unacknowledged.get(token)
    if (!entry) return undefined
    this.unacknowledged.delete(token)
    return setAside(entry.file, path.join(this.dir, FAILED_DIR))
  }

  /** Replays every entry a previous process left behind; returns the number of batches replayed. */
  async recover(store: Store, log: Logger): Promise<number> {
    const files = journalEntries(this.dir, (f) => f.endsWith('.batch')).map((f) => path.join(this.dir, f))
    await replayEntries(
      files,
      {
        read: (file) => readEntryFile<Header>(file),
        apply: ({ header, payload }, file) => loadEntryFile(store, header, file, () => payload),
        // a crash may have left it applied in part, like a failed attempt
        replayed: ({ header, payload }) => this.notePartial(header, () => Promise.resolve(payload)),
        failedDir: path.join(this.dir, FAILED_DIR),
        messages: {
          incomplete: 'journal entry cut short by the crash; it was never sent, removing it',
          refused: REPLAY_BY_HAND,
          replayed: 'replayed an interrupted batch from the journal'
        },
        describe: ({ header }) => ({ table: header.table, token: header.dedupToken })
      },
      log
    )
    return files.length
  }
}

/**
 * Writes `parts` in order as the whole file, in one gathered write: a live batch holds a chunk per drained
 * venue batch (hundreds a second in a burst), and `writeFile` over the parts would take one write request
 * (a thread-pool round trip on the main thread's side) per part.
 */
async function writeParts(file: string, parts: readonly Uint8Array[]): Promise<void> {
  const handle = await fs.promises.open(file, 'w')
  try {
    const bytes = parts.reduce((n, part) => n + part.byteLength, 0)
    // libuv writes every buffer (partial writes continued, IOV_MAX buffers at a time)
    const { bytesWritten } = await handle.writev(parts)
    if (bytesWritten !== bytes) throw new Error(`journal entry ${file}: ${bytesWritten} of ${bytes} bytes written`)
  } finally {
    await handle.close()
  }
}

/** What an operator reads when a batch is set aside (docs/deployment.md, "A full disk"). */
export const REPLAY_BY_HAND =
  'batch not written and set aside in journal/failed; once its cause is fixed, move the file back into ' +
  'journal/ and restart: entries there are replayed at start'

/**
 * The time range of a TSV payload's rows, from its `ts` column (epoch ms, as the row encoder writes it);
 * null when the payload has no such column or no row.
 */
export function rowsRange(columns: readonly string[], data: Buffer): TimeRange | null {
  const col = columns.indexOf('ts')
  if (col < 0) return null
  let fromMs = Infinity
  let toMs = -Infinity
  // a rare path (a batch after a failed attempt): plain string splitting
  for (const line of data.toString('latin1').split('\n')) {
    const ts = Number(line.split('\t', col + 1)[col])
    if (line === '' || !Number.isFinite(ts)) continue
    if (ts < fromMs) fromMs = ts
    if (ts > toMs) toMs = ts
  }
  return fromMs <= toMs ? { fromMs, toMs } : null
}
