/**
 * @module
 * Group commit of rows into one table (as TSV): at most PARALLEL_INSERTS inserts in flight; rows pushed
 * meanwhile form the next batches (MAX_BATCH_ROWS each). So a lone row is stored within one insert's time, and under load
 * batches grow with it (thousands of rows per insert) instead of one insert per row. A failed insert is retried with the same
 * bytes and dedup token (backoff as every store write: engine/runtime/retry.ts) until it succeeds or the writer is
 * closed, so a retry that did reach the store is not written twice.
 *
 * Bounded: `full` is true at `maxRows` queued; the producers decide (the outbox stops starting attempts;
 * new events are counted as dropped). `push` returns the promise of the batch the row joined.
 */
import crypto from 'node:crypto'
import { backoffMs, sleep } from '../runtime/retry.js'
import { escapeTsv } from '../records/tsv.js'
import type { Store } from '../store/store.js'

/** One value as TabSeparated text: null is `\\N`, numbers as JS writes them (ClickHouse reads them back exactly). */
function tsvValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N'
  if (typeof v === 'number') return String(v)
  if (typeof v === 'boolean') return v ? '1' : '0'
  return escapeTsv(String(v))
}

/** A row object as one TSV line in `columns` order (TSV: cheaper to write here and to parse in the engine than JSON). */
function tsvLine(row: Record<string, unknown>, columns: readonly string[]): string {
  let line = tsvValue(row[columns[0]!])
  for (let i = 1; i < columns.length; i++) line += '\t' + tsvValue(row[columns[i]!])
  return line
}

interface Batch {
  readonly lines: string[]
  readonly done: Promise<void>
  resolve: () => void
  reject: (err: unknown) => void
}

function newBatch(): Batch {
  let resolve!: () => void
  let reject!: (err: unknown) => void
  const done = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  // a batch nobody awaits must not become an unhandled rejection when the writer closes
  done.catch(() => {})
  return { lines: [], done, resolve, reject }
}

/** Rows per insert at most: a burst is stored in slices, so the first rows are stored (and their attempts start) while the rest are still being written. */
export const MAX_BATCH_ROWS = 4_000

/**
 * Inserts in flight at once per table: a second batch is written while the first is, so the latency of one
 * insert does not cap the rows stored per second (order does not matter: versions decide each state).
 */
export const PARALLEL_INSERTS = 2

export class RowWriter {
  /** batches not yet written, oldest first; the last one takes new rows until it holds MAX_BATCH_ROWS */
  private readonly waiting: Batch[] = []
  /** batches being inserted (at most `parallel`) */
  private readonly writing = new Set<Batch>()
  private queuedRows = 0
  private scheduled = false
  private closed = false
  private readonly abort = new AbortController()
  /** rows stored since start */
  written = 0
  /** failed insert attempts (each retried) */
  errors = 0

  constructor(
    private readonly store: Store,
    private readonly table: string,
    private readonly columns: readonly string[],
    /** rows queued at which `full` turns true */
    private readonly maxRows: number,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly maxBatchRows: number = MAX_BATCH_ROWS,
    /** inserts in flight at once (each on its own store connection) */
    private readonly parallel: number = PARALLEL_INSERTS
  ) {}

  /** Rows waiting to be stored (in the batch being written and those after it). */
  get queued(): number {
    return this.queuedRows
  }

  get full(): boolean {
    return this.queuedRows >= this.maxRows
  }

  /** Queues one row (an object with the table's columns); resolves when its batch is stored. */
  push(row: object): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.table} writer is closed`))
    let batch = this.waiting[this.waiting.length - 1]
    if (batch === undefined || batch.lines.length >= this.maxBatchRows) this.waiting.push((batch = newBatch()))
    batch.lines.push(tsvLine(row as Record<string, unknown>, this.columns))
    this.queuedRows++
    this.kick()
    return batch.done
  }

  /** Resolves when every row pushed so far is stored. */
  async flush(): Promise<void> {
    const waits = this.waiting.map((b) => b.done)
    for (const b of this.writing) waits.push(b.done)
    await Promise.all(waits)
  }

  /** Stores what is queued, waiting at most `ms`; then stops retrying (unstored batches reject). */
  async close(ms: number): Promise<void> {
    const timer = new Promise<void>((r) => setTimeout(r, ms).unref())
    await Promise.race([this.flush().catch(() => {}), timer])
    this.closed = true
    this.abort.abort()
    for (const b of this.waiting.splice(0))
      b.reject(new Error(`${this.table} writer closed before the rows were stored`))
  }

  private kick(): void {
    if (this.scheduled || this.writing.size >= this.parallel) return
    this.scheduled = true
    // let the rows of this tick (e.g. every delivery of one event) join the batch
    setImmediate(() => {
      this.scheduled = false
      void this.writeNext()
    })
  }

  private async writeNext(): Promise<void> {
    if (this.writing.size >= this.parallel) return
    const batch = this.waiting.shift()
    if (batch === undefined) return
    this.writing.add(batch)
    const data = Buffer.from(batch.lines.join('\n') + '\n')
    const dedupToken = `${this.table}:${crypto.randomUUID()}`
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.insert({ table: this.table, columns: this.columns, format: 'TSV', data, dedupToken })
        this.written += batch.lines.length
        batch.resolve()
        break
      } catch (err) {
        this.errors++
        this.onError(err)
        if (!this.closed) await sleep(backoffMs(attempt), this.abort.signal)
        if (this.closed) {
          batch.reject(err)
          break
        }
      }
    }
    this.queuedRows -= batch.lines.length
    this.writing.delete(batch)
    if (this.waiting.length > 0) void this.writeNext()
  }
}
