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
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../engine/log.js'
import type { InsertBatch, Store } from '../engine/store/store.js'
import { insertKept, insertVia } from '../engine/store/file-insert.js'
import { toStoreError } from '../engine/store/store-error.js'

interface Header {
  readonly table: string
  readonly columns: readonly string[]
  readonly format: InsertBatch['format']
  readonly dedupToken: string
  /** payload length: an entry cut short by a crash during its own write was never sent and is dropped */
  readonly bytes: number
  /**
   * `file`: inserted by the store reading this entry (`Store.insertFile`), and so replayed: the dedup block
   * ids of a token differ between that and the inline insert. Absent in entries of older versions: inline.
   */
  readonly via?: 'file'
  /** the batch was sent with `foldKeys` (store.ts), and is replayed so. Absent: `optimize_on_insert=0`. */
  readonly foldKeys?: true
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
}

export class BatchJournal {
  private seq = 0
  private readonly dir: string
  /** entries of batches not yet acknowledged, by dedup token: a retry reuses its entry */
  private readonly unacknowledged = new Map<string, Entry>()

  constructor(dir: string) {
    this.dir = path.resolve(dir) // the store may read entries itself (insertFile): absolute paths
    fs.mkdirSync(this.dir, { recursive: true })
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
    await insertEntry(store, entry.header, entry.file, () => batch.data)
    this.unacknowledged.delete(batch.dedupToken)
    await fs.promises.unlink(entry.file)
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
    const file = path.join(this.dir, `${Date.now()}-${process.pid}-${this.seq++}.batch`)
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
    const written = fs.promises.writeFile(file, [Buffer.from(JSON.stringify(header) + '\n'), ...parts])
    const entry: Entry = { file, header, written }
    this.unacknowledged.set(batch.dedupToken, entry)
    written.catch(() => {
      if (this.unacknowledged.get(batch.dedupToken) === entry) this.unacknowledged.delete(batch.dedupToken)
    })
    return entry
  }

  /**
   * The batch of `token` will not be retried (it failed with a non-retryable error; its rows are counted
   * as failed): its entry moves to `failed/` (kept for inspection, never replayed).
   */
  async abandon(token: string): Promise<void> {
    const entry = this.unacknowledged.get(token)
    if (!entry) return
    this.unacknowledged.delete(token)
    await this.setAside(entry.file)
  }

  private async setAside(file: string): Promise<void> {
    const failed = path.join(this.dir, 'failed')
    await fs.promises.mkdir(failed, { recursive: true })
    await fs.promises.rename(file, path.join(failed, path.basename(file)))
  }

  /** Replays every entry a previous process left behind; returns the number of batches replayed. */
  async recover(store: Store, log: Logger): Promise<number> {
    const files = fs
      .readdirSync(this.dir)
      .filter((f) => f.endsWith('.batch'))
      .sort()
    for (const f of files) {
      const file = path.join(this.dir, f)
      const buf = fs.readFileSync(file)
      const nl = buf.indexOf(10)
      let header: Header | undefined
      try {
        header = JSON.parse(buf.subarray(0, nl).toString('utf8')) as Header
      } catch {
        header = undefined
      }
      const data = buf.subarray(nl + 1)
      if (nl < 0 || !header || header.bytes !== data.byteLength) {
        log.warn({ file }, 'journal entry cut short by the crash; it was never sent, removing it')
        fs.unlinkSync(file)
        continue
      }
      try {
        await insertEntry(store, header, file, () => data)
      } catch (err) {
        // a store that is down keeps the entry for the next start; bad data would fail every start
        if (toStoreError(err).retryable) throw err
        await this.setAside(file)
        log.error({ file, err: (err as Error).message }, 'journal entry failed to replay; moved to journal/failed')
        continue
      }
      fs.unlinkSync(file)
      log.warn({ table: header.table, token: header.dedupToken }, 'replayed an interrupted batch from the journal')
    }
    return files.length
  }
}

/**
 * Inserts one journal entry the way its header says it was first sent (see `Header.via`); `data` gives the
 * payload, read only for an inline insert.
 */
async function insertEntry(store: Store, header: Header, file: string, data: () => Buffer): Promise<void> {
  const { bytes: _bytes, via, ...batch } = header
  await insertKept(store, batch, file, 1, via ?? 'inline', data)
}
