/**
 * @module
 * The ingest pipeline: one TableBatcher per target table, created on first use. Sources push encoded
 * chunks and barriers; the pipeline reports queued, written and failed rows for `/v1/health`.
 */
import type { TimeRange } from '../engine/store/compact.js'
import type { Logger } from '../engine/log.js'
import type { InsertBatch, Store } from '../engine/store/store.js'
import type { BatchJournal } from './journal.js'
import { isBarrier, isLiveRecords, type EncodedChunk, type IngestItem } from './encoded-chunk.js'
import type { NormalizedRecord } from '../engine/records/types.js'

/** Where live records and rebuild requests go (the in-memory live state). */
export interface LiveSink {
  apply(records: readonly NormalizedRecord[]): void
  rebuild(): Promise<void>
}
import { TableBatcher, type BatcherOptions, type TableCounters } from './table-batcher.js'

export interface IngestTotals {
  readonly queued: number
  readonly written: number
  readonly failed: number
  readonly batches: number
  readonly retries: number
  readonly tables: Readonly<Record<string, Readonly<TableCounters>>>
}

export class IngestPipeline {
  private readonly batchers = new Map<string, TableBatcher>()
  private closing = false

  private readonly insert: (batch: InsertBatch) => Promise<void>
  private readonly abandon: ((token: string) => Promise<void>) | undefined
  /** set by the server: receives live records and rebuild requests */
  live: LiveSink | undefined
  /**
   * set by the server: called once a bulk load ended (a barrier with `bulkEnd`; imports call it with the
   * range they wrote), e.g. to compact tables
   */
  onBulkEnd: ((range?: TimeRange) => void) | undefined

  /** Without a journal, inserts go straight to the store (tests of the batching alone). */
  constructor(
    store: Store,
    private readonly opts: BatcherOptions,
    private readonly log: Logger,
    journal?: BatchJournal
  ) {
    this.insert = journal ? (b) => journal.insert(store, b) : (b) => store.insert(b)
    this.abandon = journal ? (token) => journal.abandon(token) : undefined
  }

  private batcher(table: string): TableBatcher {
    let b = this.batchers.get(table)
    if (!b) this.batchers.set(table, (b = new TableBatcher(table, this.insert, this.opts, this.log, this.abandon)))
    return b
  }

  /** Accepts one chunk; the promise resolves when it is queued (backpressure when the table's queue is full). */
  write(chunk: EncodedChunk): Promise<void> {
    if (this.closing) return Promise.reject(new Error('ingest pipeline is closing'))
    return this.batcher(chunk.table).add(chunk)
  }

  /** Seals every open batch and waits until all of them are written (or failed). */
  async barrier(): Promise<void> {
    await Promise.all([...this.batchers.values()].map((b) => b.flush()))
  }

  /**
   * Writes one chunk now, as its own batch, outside the batchers (admin ingest: the caller answers only
   * after the store acknowledged). Counted in the table's written rows like any batch.
   */
  async writeDirect(chunk: EncodedChunk, dedupToken: string): Promise<void> {
    // a failure here is reported to the caller (who may retry), so it is not counted as a lost row
    await this.insert({
      table: chunk.table,
      columns: chunk.columns,
      format: 'TSV',
      data: Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength),
      dedupToken
    })
    const counters = this.batcher(chunk.table).counters
    counters.written += chunk.rows
    counters.batches++
  }

  async push(item: IngestItem): Promise<void> {
    if (isLiveRecords(item)) {
      this.live?.apply(item.records)
    } else if (isBarrier(item)) {
      await this.barrier()
      await item.onDone?.()
      if (item.rebuildLive) await this.live?.rebuild()
      if (item.bulkEnd) this.onBulkEnd?.()
    } else {
      await this.write(item)
    }
  }

  totals(): IngestTotals {
    const t = { queued: 0, written: 0, failed: 0, batches: 0, retries: 0 }
    const tables: Record<string, TableCounters> = {}
    for (const [name, b] of this.batchers) {
      const c = b.counters
      t.queued += c.queued
      t.written += c.written
      t.failed += c.failed
      t.batches += c.batches
      t.retries += c.retries
      tables[name] = { ...c }
    }
    return { ...t, tables }
  }

  /** Stops accepting, flushes every queued batch; retries end at `deadline` (epoch ms). */
  async close(deadline: number): Promise<void> {
    this.closing = true
    await Promise.all([...this.batchers.values()].map((b) => b.close(deadline)))
  }
}
