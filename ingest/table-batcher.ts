/**
 * @module
 * One batcher per table. Chunks join the open batch; the batch is sealed when it reaches `batchRows`, when
 * it has been open `flushMs` (live chunks only), or at a barrier. Sealed batches wait in a bounded queue
 * (producers wait when it is full) and one writer per table inserts them in order, each with a
 * deterministic dedup token, retrying transient store failures with backoff. A batch that cannot be
 * written is counted as failed, never dropped silently.
 */
import crypto from 'node:crypto'
import type { Logger } from '../engine/log.js'
import type { InsertBatch } from '../engine/store/store.js'
import { toStoreError } from '../engine/store/store-error.js'
import { BoundedQueue } from './bounded-queue.js'
import type { EncodedChunk } from './encoded-chunk.js'
import { backoffMs, sleep } from './retry.js'

export interface BatcherOptions {
  /** rows that seal a batch. @default 50_000 */
  readonly batchRows: number
  /**
   * rows that seal a batch of bulk chunks (the demo backfill, replays at full speed): bigger inserts cost
   * less per row (bench: 250,000-row inserts ~1.5x the rows/s of 50,000-row ones) and latency does not
   * matter there. A live chunk joining the batch brings the limit back to `batchRows`. @default batchRows
   */
  readonly bulkBatchRows?: number
  /** age that seals a batch of live chunks, ms. @default 1_000 */
  readonly flushMs: number
  /** rows the sealed-batch queue holds before producers wait */
  readonly queueRows: number
}

export interface TableCounters {
  /** rows accepted but not yet written or failed */
  queued: number
  written: number
  failed: number
  batches: number
  retries: number
}

interface Batch {
  readonly rows: number
  readonly data: Buffer
  readonly token: string
  readonly columns: readonly string[]
}

export class TableBatcher {
  readonly counters: TableCounters = { queued: 0, written: 0, failed: 0, batches: 0, retries: 0 }
  private open: EncodedChunk[] = []
  private openRows = 0
  /** whether a live chunk is in the open batch (then it seals at batchRows) */
  private openLive = false
  private timer: NodeJS.Timeout | undefined
  private readonly sealed: BoundedQueue<Batch | null>
  private pending = 0
  private idleWaiters: Array<() => void> = []
  private readonly writer: Promise<void>
  /** set at shutdown: stop retrying after this time (epoch ms) */
  private giveUpAt = Infinity

  constructor(
    readonly table: string,
    /** journaled insert of one batch (see journal.ts) */
    private readonly insert: (batch: InsertBatch) => Promise<void>,
    private readonly opts: BatcherOptions,
    private readonly log: Logger,
    /** a batch that failed for good (not retryable): its journal entry is set aside (see journal.ts) */
    private readonly abandon?: (token: string) => Promise<void>
  ) {
    this.sealed = new BoundedQueue(opts.queueRows)
    this.writer = this.writeLoop()
  }

  /** Adds a chunk; resolves once it is accepted (waits while the queue is full). */
  async add(chunk: EncodedChunk): Promise<void> {
    this.open.push(chunk)
    this.openRows += chunk.rows
    this.counters.queued += chunk.rows
    if (!chunk.bulk) this.openLive = true
    const limit = this.openLive ? this.opts.batchRows : (this.opts.bulkBatchRows ?? this.opts.batchRows)
    if (this.openRows >= limit) await this.seal()
    else if (!chunk.bulk && !this.timer) this.timer = setTimeout(() => void this.seal(), this.opts.flushMs)
  }

  /** Seals the open batch into the write queue. */
  async seal(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.open.length === 0) return
    const chunks = this.open
    this.open = []
    this.openRows = 0
    this.openLive = false
    const rows = chunks.reduce((n, c) => n + c.rows, 0)
    const digest = crypto.createHash('sha1')
    for (const c of chunks) digest.update(c.hash)
    const batch: Batch = {
      rows,
      data: Buffer.concat(chunks.map((c) => c.data)),
      token: `${this.table}:${rows}:${digest.digest('hex')}`,
      columns: chunks[0]!.columns
    }
    this.pending++
    await this.sealed.push(batch, rows)
  }

  /** Seals and resolves when every batch sealed so far is written or failed. */
  async flush(): Promise<void> {
    await this.seal()
    if (this.pending === 0) return
    await new Promise<void>((r) => this.idleWaiters.push(r))
  }

  /** Flushes, then stops the writer. Retries stop at `deadline` (epoch ms); what is left counts as failed. */
  async close(deadline: number): Promise<void> {
    this.giveUpAt = deadline
    await this.flush()
    await this.sealed.push(null, 0)
    await this.writer
  }

  private async writeLoop(): Promise<void> {
    for (;;) {
      const batch = await this.sealed.take()
      if (batch === null) return
      await this.writeWithRetry(batch)
      this.counters.queued -= batch.rows
      this.counters.batches++
      if (--this.pending === 0) for (const wake of this.idleWaiters.splice(0)) wake()
    }
  }

  private async writeWithRetry(batch: Batch): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.insert({
          table: this.table,
          columns: batch.columns,
          format: 'TSV',
          data: batch.data,
          dedupToken: batch.token
        })
        this.counters.written += batch.rows
        return
      } catch (err) {
        const e = toStoreError(err)
        const delay = backoffMs(attempt)
        if (!e.retryable || Date.now() + delay > this.giveUpAt) {
          this.counters.failed += batch.rows
          this.log.error(
            { table: this.table, rows: batch.rows, code: e.clickhouseCode, err: e.message },
            'batch failed'
          )
          // out of time at shutdown with a retryable error: the entry stays for the next start to replay
          if (!e.retryable) await this.abandon?.(batch.token).catch(() => undefined)
          return
        }
        this.counters.retries++
        this.log.warn({ table: this.table, attempt, delay, code: e.clickhouseCode }, 'batch write failed, retrying')
        await sleep(delay)
      }
    }
  }
}
