/**
 * @module
 * The outbox's write path for one table: an append-only local journal, loaded into the store in bulk
 * (docs/webhooks.md, "Durability"). A pushed row is appended (as a TSV line) to the table's open segment
 * file in DATA_DIR/webhook-journal with one write(2) per event-loop turn for every row of that turn; `push`
 * resolves once that write returned, so a delivery is on disk before its first attempt. A segment is sealed
 * after SEGMENT_ROWS rows or SEGMENT_MAX_MS after it was opened, or when a reader needs every row in the
 * store (`flush`: the delivery log, a redelivery, resume, stop). Rows need not reach the store sooner, so
 * a steady flow makes at most one insert per table every 2 s: each insert costs the embedded engine ~10-20
 * ms of CPU whatever its size (1,000-row inserts cost ~4x the CPU per row of 20,000- to 40,000-row ones,
 * measured for bench/webhooks), and a quiet period sealing every small burst would cost that per event.
 * Then the store reads the file itself (`Store.insertFile`) under a dedup token fixed in the segment's
 * header, and the file is removed. A segment left by a crash (before, during or after its
 * load) is loaded again at the next start with the same token (journal-recovery.ts): the store keeps its
 * rows once.
 *
 * Not fsynced, like the store's own parts and the ingest journal: a process crash (kill -9, OOM) loses
 * nothing written, a power loss can lose the last seconds.
 *
 * Bounded: `full` is true at `maxRows` rows not yet in the store (journaled or loading); the outbox then
 * stops starting attempts and counts new events as dropped. A store that is down keeps the rows in
 * segments (retried with backoff) until it is back or the process stops; they stay on disk for the next
 * start. A segment refused REFUSED_ATTEMPTS times with an error that is not transient (bad data) moves to
 * `failed/`, logged, so one bad segment cannot stall the journal.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { backoffMs, sleep } from '../runtime/backoff.js'
import type { Store } from '../store/store.js'
import { toStoreError } from '../store/store-error.js'
import { headerLine } from '../journal/entry-file.js'
import { setAside } from '../journal/replay.js'
import { loadSegment, segmentHeader, SEGMENTS_FAILED_DIR, type SegmentHeader } from './journal-recovery.js'
import { tsvEncoder, type TsvEncoder } from '../runtime/tsv-row.js'

/**
 * Rows per segment at most: a sealed segment is one insert. Engine CPU per delivery (its delivery and attempt
 * rows, merges included), measured for bench/webhooks on 2026-11-24: ~4-5 µs in 10,000-row segments, ~2.7
 * in 20,000-row ones, ~2.25 in 50,000-row ones; RSS with 100,000 deliveries pending the same (~+60 MB).
 */
export const SEGMENT_ROWS = 50_000
/**
 * A segment is sealed this long after it was opened, ms: the longest a row waits before its load starts
 * (unless a reader flushes first; every read of the log does). A flow of 25,000 rows a second fills a
 * segment in about this time.
 */
export const SEGMENT_MAX_MS = 2_000

/** Lines written at once at most: a larger turn is written in chunks of this many (bounds the write buffer). */
const WRITE_CHUNK_LINES = 4_096

/** Loads of a segment refused with an error that is not transient before it is set aside (transient ones retry until the store is back). */
export const REFUSED_ATTEMPTS = 5

/** The writer interface the outbox uses (TableJournal; tests may pass their own). */
export interface RowWriterLike {
  /** rows pushed and not yet in the store */
  readonly queued: number
  /** `queued` reached the bound: producers hold back */
  readonly full: boolean
  /** queues one row; resolves when it is durable (journaled) */
  push(row: object): Promise<void>
  /** resolves when every row pushed so far is in the store */
  flush(): Promise<void>
  /** flushes for at most `ms`, then stops; what is not loaded stays journaled for the next start */
  close(ms: number): Promise<void>
}

interface Deferred {
  readonly promise: Promise<void>
  resolve(): void
  reject(err: unknown): void
}

function deferred(): Deferred {
  let resolve!: () => void
  let reject!: (err: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  promise.catch(() => {}) // a push nobody awaits must not become an unhandled rejection
  return { promise, resolve, reject }
}

interface Segment {
  readonly file: string
  readonly header: SegmentHeader
  fd: number | null
  rows: number
  /** resolved once its rows are in the store and the file is gone */
  readonly loaded: Deferred
}

export interface TableJournalOptions {
  readonly store: Store
  /** the journal directory (shared by the tables; file names start with the table) */
  readonly dir: string
  readonly table: string
  readonly columns: readonly string[]
  /** rows not yet in the store at which `full` turns true */
  readonly maxRows: number
  /** a failed load (retried) */
  readonly onError?: (err: unknown) => void
  /** a segment the store refused REFUSED_ATTEMPTS times with an error that is not transient, moved to `failed/` */
  readonly onRefused?: (file: string, err: unknown) => void
  readonly segmentRows?: number
  readonly segmentMaxMs?: number
}

export class TableJournal implements RowWriterLike {
  readonly dir: string
  readonly table: string
  /** file-name prefix of this process's segments (recovery leaves them alone) */
  readonly runPrefix: string
  private readonly o: TableJournalOptions
  /** a row of this table as its TSV line */
  private readonly encode: TsvEncoder
  private seq = 0
  /** lines pushed this turn, written at its end */
  private lines: string[] = []
  private tick: Deferred | null = null
  private open: Segment | null = null
  private sealTimer: NodeJS.Timeout | null = null
  /** sealed segments waiting for their load, oldest first */
  private readonly sealed: Segment[] = []
  private loading: Segment | null = null
  private queuedRows = 0
  private closed = false
  private readonly abort = new AbortController()
  /** rows in the store since start */
  written = 0
  /** failed loads (each retried) */
  errors = 0

  constructor(o: TableJournalOptions) {
    this.o = o
    this.dir = path.resolve(o.dir) // the store reads segments itself: absolute paths
    this.table = o.table
    this.encode = tsvEncoder(o.columns)
    this.runPrefix = `${o.table}.${Date.now()}-${process.pid}-${crypto.randomBytes(4).toString('hex')}.`
    fs.mkdirSync(this.dir, { recursive: true })
  }

  get queued(): number {
    return this.queuedRows
  }

  get full(): boolean {
    return this.queuedRows >= this.o.maxRows
  }

  push(row: object): Promise<void> {
    if (this.closed) {
      // an attempt that settles after stop(): its caller may not await, so no unhandled rejection
      const refused = Promise.reject(new Error(`${this.table} journal is closed`))
      refused.catch(() => {})
      return refused
    }
    this.lines.push(this.encode(row as Record<string, unknown>))
    this.queuedRows++
    if (this.lines.length >= WRITE_CHUNK_LINES && this.tick !== null) {
      // a burst (100,000 events in one turn) is written in chunks: no 25 MB string and buffer at once
      const written = this.tick.promise
      this.writeTick()
      return written
    }
    if (this.tick === null) {
      this.tick = deferred()
      // every row of this turn (e.g. all deliveries of one event, all attempts that settled) in one write
      setImmediate(() => this.writeTick())
    }
    return this.tick.promise
  }

  async flush(): Promise<void> {
    this.writeTick()
    this.seal()
    const waits = this.sealed.map((s) => s.loaded.promise)
    if (this.loading) waits.push(this.loading.loaded.promise)
    await Promise.all(waits)
  }

  async close(ms: number): Promise<void> {
    const timer = new Promise<void>((r) => setTimeout(r, ms).unref())
    await Promise.race([this.flush().catch(() => {}), timer])
    this.writeTick()
    this.closed = true
    this.abort.abort()
    if (this.sealTimer !== null) clearTimeout(this.sealTimer)
    this.closeFile(this.open)
    this.open = null
  }

  /** Appends this turn's lines to the open segment (opening one when needed). */
  private writeTick(): void {
    const tick = this.tick
    if (tick === null) return
    const lines = this.lines
    this.lines = []
    this.tick = null
    try {
      const seg = this.open ?? this.startSegment()
      writeText(seg.fd!, lines.join('\n') + '\n')
      seg.rows += lines.length
      tick.resolve()
      if (seg.rows >= (this.o.segmentRows ?? SEGMENT_ROWS)) this.seal()
    } catch (err) {
      // not durable: the producers learn it (the outbox fails those deliveries); counted as not queued
      this.queuedRows -= lines.length
      this.errors++
      this.o.onError?.(err)
      tick.reject(err)
    }
  }

  private startSegment(): Segment {
    const name = `${this.runPrefix}${String(this.seq++).padStart(8, '0')}.tsv`
    const file = path.join(this.dir, name)
    const header = segmentHeader(this.o.store, this.table, this.o.columns, file)
    const fd = fs.openSync(file, 'wx', 0o600)
    const seg: Segment = { file, header, fd, rows: 0, loaded: deferred() }
    try {
      writeAll(fd, headerLine(header))
    } catch (err) {
      this.closeFile(seg)
      fs.rmSync(file, { force: true })
      throw err
    }
    this.open = seg
    this.sealTimer = setTimeout(() => this.seal(), this.o.segmentMaxMs ?? SEGMENT_MAX_MS)
    this.sealTimer.unref() // close() stores what is open; the timer alone keeps no process alive
    return seg
  }

  /** Closes the open segment and queues its load. */
  private seal(): void {
    if (this.sealTimer !== null) clearTimeout(this.sealTimer)
    this.sealTimer = null
    const seg = this.open
    if (seg === null) return
    this.open = null
    this.closeFile(seg)
    this.sealed.push(seg)
    void this.loadNext()
  }

  /** Loads sealed segments one at a time, each retried with backoff until it is in the store. */
  private async loadNext(): Promise<void> {
    if (this.loading !== null) return
    const seg = this.sealed.shift()
    if (seg === undefined) return
    this.loading = seg
    for (let attempt = 1; ; attempt++) {
      try {
        await loadSegment(this.o.store, seg.header, seg.file)
        fs.rmSync(seg.file, { force: true })
        this.written += seg.rows
        this.queuedRows -= seg.rows
        seg.loaded.resolve()
        break
      } catch (err) {
        this.errors++
        this.o.onError?.(err)
        if (!toStoreError(err).retryable && attempt >= REFUSED_ATTEMPTS) {
          // refused for good (bad data): kept for inspection, never loaded again; the rows count as handled
          // so the journal does not stall behind it (the deliveries in memory go on)
          await setAside(seg.file, path.join(this.dir, SEGMENTS_FAILED_DIR))
          this.queuedRows -= seg.rows
          this.o.onRefused?.(seg.file, err)
          seg.loaded.resolve()
          break
        }
        if (!this.closed) await sleep(backoffMs(attempt), this.abort.signal)
        if (this.closed) {
          // the file stays: the next start loads it (journal-recovery.ts)
          seg.loaded.reject(new Error(`${this.table} journal closed before segment ${seg.file} was loaded`))
          for (const s of this.sealed.splice(0)) s.loaded.reject(new Error(`${this.table} journal closed`))
          break
        }
      }
    }
    this.loading = null
    if (!this.closed) void this.loadNext()
  }

  private closeFile(seg: Segment | null): void {
    if (seg?.fd == null) return
    try {
      fs.closeSync(seg.fd)
    } catch {
      // already closed
    }
    seg.fd = null
  }
}

/**
 * Writes `text` as UTF-8: straight from the string (no Buffer object per write); after a short write (legal
 * for regular files, if rare) the rest goes through `writeAll`.
 */
function writeText(fd: number, text: string): void {
  const n = fs.writeSync(fd, text, null, 'utf8')
  const bytes = Buffer.byteLength(text, 'utf8')
  if (n < bytes) writeAll(fd, Buffer.from(text, 'utf8').subarray(n))
}

/** write(2) until every byte is written (a short write is legal for regular files, if rare). */
function writeAll(fd: number, buf: Buffer): void {
  let off = 0
  while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off)
}
