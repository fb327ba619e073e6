/**
 * @module
 * One batcher per table. Chunks join the open batch; the batch is sealed when it reaches `batchRows`, when
 * it has been open `flushMs` (live chunks only) and no sealed batch waits for the writer (see Backlog), or
 * at a barrier or hold. Sealed batches wait in order and one writer per table inserts them, each with a
 * deterministic dedup token, retrying transient store failures with backoff. A full disk is such a failure:
 * the batch is held and tried again until there is room (the queue's bound stops the producers meanwhile). A
 * batch that cannot be written is counted as failed, never dropped silently.
 *
 * Bound: `queued` (rows accepted and not yet written or failed: the open batch, sealed batches and the one
 * being written) never exceeds `queueRows`, except that one chunk larger than the whole bound is admitted
 * into an empty queue. Producers wait in `add` until there is room, whether the batch seals by size, by
 * timer or at a barrier, so a store outage blocks the sources instead of growing memory.
 *
 * Backlog: while a sealed batch waits for the writer (a slow store, a hold), the timer does not seal: the
 * open batch keeps growing (up to `batchRows`) and is sealed as soon as nothing waits before it, when it is
 * handed to the writer's next turn. Sealing it earlier would not write its rows sooner, and a backlog of
 * timer-sized batches (one per `flushMs`) costs an insert each: a hold that waits for the backlog
 * (live-state rebuilds) would wait for many small inserts instead of a few large ones.
 *
 * Ahead of the writer: a sealed batch is handed to `prepare` at once (the journal then writes its entry
 * while the batch before it is still being inserted: journal.ts), the insert itself stays in order.
 *
 * Hold: `hold()` seals the open batch and lets the writer finish everything sealed so far, while batches
 * sealed later wait until `release`. The live state uses it to read a snapshot of the store that contains
 * exactly the rows accepted before the hold (live-state.ts).
 */
import crypto from 'node:crypto'
import type { Logger } from '../engine/log.js'
import { toStoreError } from '../engine/store/store-error.js'
import type { EncodedChunk } from './encoded-chunk.js'
import { REPLAY_BY_HAND, type PartedBatch } from './journal.js'
import { backoffMs, sleep } from '../engine/runtime/backoff.js'

/**
 * Longest pause between two tries of a batch, ms. Lower than the shared 15 s ceiling: a try against a
 * store that is down costs nothing, and the queue drains within this long once the store is back.
 */
const WRITE_RETRY_MAX_MS = 4_000

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
  /** rows accepted and not yet written (open + sealed + being written) before producers wait */
  readonly queueRows: number
}

export interface TableCounters {
  /** rows accepted but not yet written or failed */
  queued: number
  written: number
  failed: number
  batches: number
  retries: number
  /** most rows ever queued at once (the bound is `queueRows`) */
  queued_max: number
  /** tries that failed because the data directory's disk is full (the batch is held and tried again) */
  disk_full_retries: number
  /** 1 while the batch being written last failed for a full disk, else 0 */
  waiting_for_disk: number
}

interface Batch {
  readonly seq: number
  readonly rows: number
  /** what the store (through the journal) is given, the same object on every attempt (`insertOf`) */
  readonly insert: PartedBatch
}

export class TableBatcher {
  readonly counters: TableCounters = {
    queued: 0,
    written: 0,
    failed: 0,
    batches: 0,
    retries: 0,
    queued_max: 0,
    disk_full_retries: 0,
    waiting_for_disk: 0
  }
  private open: EncodedChunk[] = []
  private openRows = 0
  /** whether a live chunk is in the open batch (then it seals at batchRows) */
  private openLive = false
  private timer: NodeJS.Timeout | undefined
  /** the open batch's flushMs is over: it is sealed once no sealed batch waits for the writer */
  private due = false
  /** whether the writer is inserting `sealed[0]` */
  private writing = false
  private readonly sealed: Batch[] = []
  /** sequence number of the next sealed batch */
  private nextSeq = 0
  /** every batch with a smaller seq is written or failed */
  private doneSeq = 0
  /** batches with seq >= this wait for the hold's release (Infinity: no hold) */
  private heldFrom = Infinity
  private roomWaiters: Array<() => void> = []
  private doneWaiters: Array<{ readonly seq: number; readonly wake: () => void }> = []
  private wakeWriter: (() => void) | undefined
  private closing = false
  private readonly writer: Promise<void>
  /** set at shutdown: stop retrying after this time (epoch ms) */
  private giveUpAt = Infinity

  constructor(
    readonly table: string,
    /** journaled insert of one batch (see journal.ts) */
    private readonly insert: (batch: PartedBatch) => Promise<void>,
    private readonly opts: BatcherOptions,
    private readonly log: Logger,
    /**
     * a batch that failed for good (not retryable): its journal entry is set aside (see journal.ts); resolves
     * with where it went
     */
    private readonly abandon?: (token: string) => Promise<string | undefined>,
    /** called with each batch as it is sealed, before its insert; must not throw (journal.ts `prepare`) */
    private readonly prepare?: (batch: PartedBatch) => void
  ) {
    this.writer = this.writeLoop()
  }

  /** Whether `rows` more fit under the bound (anything fits an empty queue). */
  hasRoom(rows: number): boolean {
    const q = this.counters.queued
    return q === 0 || q + rows <= this.opts.queueRows
  }

  /** Resolves once `rows` more fit under the bound. */
  async room(rows: number): Promise<void> {
    while (!this.hasRoom(rows)) await new Promise<void>((r) => this.roomWaiters.push(r))
  }

  /** Adds a chunk; resolves once it is accepted (waits while the queue is full). */
  async add(chunk: EncodedChunk): Promise<void> {
    await this.room(chunk.rows)
    this.accept(chunk)
  }

  /** Takes a chunk now, synchronously; the caller made room first (`room`, with no await in between). */
  accept(chunk: EncodedChunk): void {
    // one column list per insert: a chunk with other columns (explicit receive times) starts a new batch
    if (this.open.length > 0 && !sameColumns(this.open[0]!.columns, chunk.columns)) this.seal()
    this.open.push(chunk)
    this.openRows += chunk.rows
    this.counters.queued += chunk.rows
    if (this.counters.queued > this.counters.queued_max) this.counters.queued_max = this.counters.queued
    if (!chunk.bulk) this.openLive = true
    const limit = this.openLive ? this.opts.batchRows : (this.opts.bulkBatchRows ?? this.opts.batchRows)
    if (this.openRows >= limit) this.seal()
    else if (!chunk.bulk && !this.timer && !this.due) this.timer = setTimeout(() => this.flushDue(), this.opts.flushMs)
  }

  /** Sealed batches not being written (those of a hold included). */
  private get waiting(): number {
    return this.sealed.length - (this.writing ? 1 : 0)
  }

  /** The open batch's flushMs is over: sealed now, or once the batches waiting before it are taken. */
  private flushDue(): void {
    this.timer = undefined
    this.due = true
    if (this.waiting === 0) this.seal()
  }

  /** Seals the open batch into the write queue (synchronous: the rows are already counted as queued). */
  seal(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.due = false
    if (this.open.length === 0) return
    const chunks = this.open
    const bulk = !this.openLive
    this.open = []
    this.openRows = 0
    this.openLive = false
    const rows = chunks.reduce((n, c) => n + c.rows, 0)
    const digest = crypto.createHash('sha1')
    for (const c of chunks) digest.update(c.hash)
    const insert = insertOf(
      this.table,
      chunks[0]!.columns,
      `${this.table}:${rows}:${digest.digest('hex')}`,
      chunks.map((c) => c.data),
      bulk
    )
    const batch: Batch = { seq: this.nextSeq++, rows, insert }
    this.sealed.push(batch)
    this.prepare?.(insert)
    this.wakeWriter?.()
  }

  /** Seals and resolves when every batch sealed so far is written or failed. */
  flush(): Promise<void> {
    this.seal()
    return this.done(this.nextSeq)
  }

  /**
   * Seals the open batch; batches sealed from now on wait for `release`. `drained` resolves once every
   * batch sealed before the hold is written or failed. One hold at a time (the pipeline coordinates).
   */
  hold(): { readonly drained: Promise<void>; readonly release: () => void } {
    this.seal()
    this.heldFrom = this.nextSeq
    return {
      drained: this.done(this.nextSeq),
      release: () => {
        this.heldFrom = Infinity
        this.wakeWriter?.()
      }
    }
  }

  /** Flushes, then stops the writer. Retries stop at `deadline` (epoch ms); what is left counts as failed. */
  async close(deadline: number): Promise<void> {
    this.giveUpAt = deadline
    await this.flush()
    this.closing = true
    this.wakeWriter?.()
    await this.writer
  }

  /** Resolves once every batch with a seq below `seq` is written or failed. */
  private done(seq: number): Promise<void> {
    if (this.doneSeq >= seq) return Promise.resolve()
    return new Promise((wake) => this.doneWaiters.push({ seq, wake }))
  }

  private next(): Batch | undefined {
    const head = this.sealed[0]
    return head && head.seq < this.heldFrom ? head : undefined
  }

  private async writeLoop(): Promise<void> {
    for (;;) {
      if (this.due && this.waiting === 0) this.seal()
      let batch = this.next()
      while (!batch) {
        if (this.closing && this.sealed.length === 0) return
        await new Promise<void>((r) => (this.wakeWriter = r))
        this.wakeWriter = undefined
        batch = this.next()
      }
      this.writing = true
      // the open batch that is due goes behind this one now, so the journal prepares it during this insert
      if (this.due && this.waiting === 0) this.seal()
      await this.writeWithRetry(batch)
      this.writing = false
      this.sealed.shift()
      this.counters.queued -= batch.rows
      this.counters.batches++
      this.doneSeq = batch.seq + 1
      const due = this.doneWaiters.filter((w) => w.seq <= this.doneSeq)
      this.doneWaiters = this.doneWaiters.filter((w) => w.seq > this.doneSeq)
      for (const w of due) w.wake()
      for (const wake of this.roomWaiters.splice(0)) wake()
    }
  }

  private async writeWithRetry(batch: Batch): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.insert(batch.insert)
        this.counters.written += batch.rows
        this.counters.waiting_for_disk = 0
        return
      } catch (err) {
        const e = toStoreError(err)
        const diskFull = e.errorClass === 'disk_full'
        this.counters.waiting_for_disk = diskFull ? 1 : 0
        const delay = backoffMs(attempt, Math.random, WRITE_RETRY_MAX_MS)
        if (!e.retryable || Date.now() + delay > this.giveUpAt) {
          this.counters.failed += batch.rows
          this.counters.waiting_for_disk = 0
          this.log.error(
            { table: this.table, rows: batch.rows, code: e.clickhouseCode, err: e.message },
            'batch failed'
          )
          // out of time at shutdown with a retryable error: the entry stays for the next start to replay
          if (!e.retryable) {
            const file = await this.abandon?.(batch.insert.dedupToken).catch(() => undefined)
            if (file) this.log.error({ table: this.table, rows: batch.rows, file }, REPLAY_BY_HAND)
          }
          return
        }
        this.counters.retries++
        if (diskFull) this.counters.disk_full_retries++
        // a full disk is held and retried like an outage: the queue's bound stops the sources meanwhile
        this.log.warn(
          { table: this.table, attempt, delay, code: e.clickhouseCode, disk_full: diskFull, err: e.message },
          diskFull ? 'data directory disk full; holding the batch until there is room' : 'batch write failed, retrying'
        )
        await sleep(delay)
      }
    }
  }
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((c, i) => c === b[i]))
}

/**
 * A sealed batch as the store (through the journal) is given it: the chunks' bytes as parts, and `data`
 * joined from them only when read, once (the journal writes the parts; a store without file inserts reads
 * `data`). `bulk` (every chunk bulk): inserted with `foldKeys`, one row per key in each aggregate part
 * (store.ts).
 */
function insertOf(
  table: string,
  columns: readonly string[],
  dedupToken: string,
  parts: readonly Uint8Array[],
  bulk: boolean
): PartedBatch {
  let whole: Buffer | undefined
  return {
    table,
    columns,
    format: 'TSV',
    dedupToken,
    ...(bulk && { foldKeys: true }),
    parts,
    get data(): Buffer {
      return (whole ??= Buffer.concat(parts))
    }
  }
}
