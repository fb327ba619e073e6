/**
 * @module
 * Group commit of JSONEachRow rows into one table: at most one insert in flight; rows pushed meanwhile form
 * the next batch. So a lone row is stored within one insert's time, and under load batches grow with it
 * (thousands of rows per insert) instead of one insert per row. A failed insert is retried with the same
 * bytes and dedup token (backoff as every store write: ingest/retry.ts) until it succeeds or the writer is
 * closed, so a retry that did reach the store is not written twice.
 *
 * Bounded: `full` is true at `maxRows` queued; the producers decide (the outbox stops starting attempts;
 * new events are counted as dropped). `push` returns the promise of the batch the row joined.
 */
import crypto from 'node:crypto'
import { backoffMs, sleep } from '../../ingest/retry.js'
import type { Store } from '../store/store.js'

interface Batch {
  lines: string[]
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

export class RowWriter {
  private current: Batch = newBatch()
  private writing: Batch | null = null
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
    private readonly onError: (err: unknown) => void = () => {}
  ) {}

  /** Rows waiting to be stored (in the batch being written and the next). */
  get queued(): number {
    return this.current.lines.length + (this.writing?.lines.length ?? 0)
  }

  get full(): boolean {
    return this.queued >= this.maxRows
  }

  /** Queues one row (an object with the table's columns); resolves when its batch is stored. */
  push(row: object): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.table} writer is closed`))
    this.current.lines.push(JSON.stringify(row))
    this.kick()
    return this.current.done
  }

  /** Resolves when every row pushed so far is stored. */
  async flush(): Promise<void> {
    const waits: Promise<void>[] = []
    if (this.writing) waits.push(this.writing.done)
    if (this.current.lines.length > 0) waits.push(this.current.done)
    await Promise.all(waits)
  }

  /** Stores what is queued, waiting at most `ms`; then stops retrying (unstored batches reject). */
  async close(ms: number): Promise<void> {
    const timer = new Promise<void>((r) => setTimeout(r, ms).unref())
    await Promise.race([this.flush().catch(() => {}), timer])
    this.closed = true
    this.abort.abort()
  }

  private kick(): void {
    if (this.scheduled || this.writing) return
    this.scheduled = true
    // let the rows of this tick (e.g. every delivery of one event) join the batch
    setImmediate(() => {
      this.scheduled = false
      void this.writeNext()
    })
  }

  private async writeNext(): Promise<void> {
    if (this.writing || this.current.lines.length === 0) return
    const batch = this.current
    this.current = newBatch()
    this.writing = batch
    const data = Buffer.from(batch.lines.join('\n') + '\n')
    const dedupToken = `${this.table}:${crypto.randomUUID()}`
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.insert({ table: this.table, columns: this.columns, format: 'JSONEachRow', data, dedupToken })
        this.written += batch.lines.length
        batch.resolve()
        break
      } catch (err) {
        this.errors++
        this.onError(err)
        if (this.closed) {
          batch.reject(err)
          break
        }
        await sleep(backoffMs(attempt), this.abort.signal)
        if (this.closed) {
          batch.reject(err)
          break
        }
      }
    }
    this.writing = null
    if (this.current.lines.length > 0) void this.writeNext()
  }
}
