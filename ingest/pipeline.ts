/**
 * @module
 * The ingest pipeline: one TableBatcher per target table, created on first use. Sources push encoded
 * chunks, live records and barriers through a lane each; the pipeline reports queued, written and failed
 * rows for `/v1/health`.
 *
 * Live records never run inside the write path: they are offered to the live state's own bounded
 * consumer (engine/live/live-state.ts), which drops and counts when full. Each offer carries the write
 * generation at which its rows were queued, so a rebuild of the live state from the store can tell rows
 * its snapshot holds from rows that arrived after it (see `hold`).
 */
import type { TimeRange } from '../engine/store/compact.js'
import type { Logger } from '../engine/log.js'
import type { Store } from '../engine/store/store.js'
import type { WriteHold } from '../engine/store/write-hold.js'
import type { BatchJournal, PartedBatch } from './journal.js'
import { isBarrier, isLiveRecords, type EncodedChunk, type IngestItem } from './encoded-chunk.js'
import { livePath } from '../engine/live/path-probe.js'
import type { NormalizedRecord, RecordKind } from '../engine/records/types.js'
import { KIND_SPECS } from '../engine/records/fields.js'
import { TableBatcher, type BatcherOptions, type TableCounters } from './table-batcher.js'

/** Where live records and rebuild requests go (the in-memory live state). */
export interface LiveSink {
  /**
   * Offers records to the live state's bounded consumer; never throws. `gen`: the write generation at
   * which their rows were queued (or written); `recvTs`: receive time of the oldest venue message behind
   * them, epoch ms (engine/live/path-probe.ts). Resolves once they are applied (or dropped).
   */
  offer(records: readonly NormalizedRecord[], gen: number, recvTs?: number): Promise<void>
  /** Asks for a rebuild from the store; resolves once one that started after the request ended. Never rejects. */
  requestRebuild(): Promise<void>
}

export type { WriteHold }

export interface IngestTotals {
  readonly queued: number
  readonly written: number
  readonly failed: number
  readonly batches: number
  readonly retries: number
  /** tries refused for a full disk (held and retried) */
  readonly disk_full_retries: number
  /** a batch is held because the data directory's disk is full */
  readonly waiting_for_disk: boolean
  readonly tables: Readonly<Record<string, Readonly<TableCounters>>>
}

/**
 * A source's way into the pipeline. It remembers the write generation at which each table's latest chunk
 * was queued, so the live records that follow a source's chunks are tagged with the generation of their
 * rows, not of the moment they reach the live state.
 */
export class Lane {
  private readonly chunkGen = new Map<string, number>()

  constructor(private readonly pipeline: IngestPipeline) {}

  async push(item: IngestItem): Promise<void> {
    const p = this.pipeline
    if (isLiveRecords(item)) {
      livePath.mark('offered', item.recvTs)
      for (const [gen, records] of this.byGeneration(item.records)) void p.live?.offer(records, gen, item.recvTs)
    } else if (isBarrier(item)) {
      // a batch that failed (the shutdown's deadline, bad data) must not be checkpointed past: the source's
      // run ends here, and its restart redoes the window from its last checkpoint (deduplicated)
      if (!(await p.barrier(item.tables)))
        throw new Error('ingest rows failed before this barrier; progress not checkpointed')
      await item.onDone?.()
      if (item.rebuildLive) await p.live?.requestRebuild()
      if (item.bulkEnd) p.onBulkEnd?.()
    } else {
      this.chunkGen.set(item.table, await p.write(item))
    }
  }

  /**
   * Splits records by the generation at which their table's rows were queued: one group in the common case
   * (one generation: the records as they are, no copy), else a group per generation.
   */
  private byGeneration(records: readonly NormalizedRecord[]): Iterable<[number, readonly NormalizedRecord[]]> {
    const now = this.pipeline.generation
    const genOf = (kind: RecordKind): number => this.chunkGen.get(KIND_SPECS[kind].table) ?? now
    let lastKind: RecordKind | undefined
    let lastGen = now
    let first: number | undefined
    let mixed = false
    for (const r of records) {
      if (r.kind === lastKind) continue
      lastKind = r.kind
      lastGen = genOf(r.kind)
      if (first === undefined) first = lastGen
      else if (lastGen !== first) mixed = true
    }
    if (first === undefined) return []
    if (!mixed) return [[first, records]]
    const out = new Map<number, NormalizedRecord[]>()
    lastKind = undefined
    for (const r of records) {
      if (r.kind !== lastKind) {
        lastKind = r.kind
        lastGen = genOf(r.kind)
      }
      let group = out.get(lastGen)
      if (!group) out.set(lastGen, (group = []))
      group.push(r)
    }
    return out
  }
}

export class IngestPipeline {
  private readonly batchers = new Map<string, TableBatcher>()
  private closing = false
  /** bumped by every hold: rows queued at generation g are in a store snapshot read under a hold g' > g */
  private gen = 0
  private holding: { readonly release: Array<() => void>; readonly done: Promise<void> } | null = null
  private releaseHold: (() => void) | undefined
  /** direct writes (admin ingest) in flight, with the generation they started in */
  private readonly direct = new Set<Promise<void>>()

  private readonly insert: (batch: PartedBatch) => Promise<void>
  private readonly abandon: ((token: string) => Promise<string | undefined>) | undefined
  /** writes a sealed batch's journal entry while the batch before it is inserted (journal.ts `prepare`) */
  private readonly prepare: ((batch: PartedBatch) => void) | undefined
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
    this.prepare = journal ? (b) => journal.prepare(store, b) : undefined
  }

  /** the current write generation */
  get generation(): number {
    return this.gen
  }

  /** A lane for one source (see `Lane`). */
  lane(): Lane {
    return new Lane(this)
  }

  private shared: Lane | undefined
  /** Pushes through one shared lane (a single producer: tests, benchmarks); sources take a lane each. */
  push(item: IngestItem): Promise<void> {
    return (this.shared ??= this.lane()).push(item)
  }

  private batcher(table: string): TableBatcher {
    let b = this.batchers.get(table)
    if (!b) {
      this.batchers.set(
        table,
        (b = new TableBatcher(table, this.insert, this.opts, this.log, this.abandon, this.prepare))
      )
      // a table first written during a hold is held too
      if (this.holding) this.holding.release.push(b.hold().release)
    }
    return b
  }

  /**
   * Accepts one chunk; resolves when it is queued (backpressure: waits while the table's queue is full)
   * with the write generation it was queued in.
   */
  async write(chunk: EncodedChunk): Promise<number> {
    if (this.closing) throw new Error('ingest pipeline is closing')
    const b = this.batcher(chunk.table)
    await b.room(chunk.rows)
    b.accept(chunk)
    return this.gen
  }

  /**
   * Seals every open batch (of `tables` only, when given) and waits until all of them are written (or failed);
   * resolves with whether no row of those tables failed meanwhile.
   */
  async barrier(tables?: readonly string[]): Promise<boolean> {
    const batchers =
      tables === undefined
        ? [...this.batchers.values()]
        : tables.flatMap((t) => {
            const b = this.batchers.get(t)
            return b === undefined ? [] : [b]
          })
    const failedOf = (): number =>
      tables === undefined ? this.totals().failed : batchers.reduce((n, b) => n + b.counters.failed, 0)
    const failed = failedOf()
    await Promise.all(batchers.map((b) => b.flush()))
    return failedOf() === failed
  }

  /**
   * Starts a new write generation: seals every open batch, lets everything accepted so far be written and
   * holds what is accepted from now on until `release`. While held, producers still queue up to each
   * table's bound, then wait. Direct writes wait for the release; those in flight are waited for. A store
   * snapshot read between `drained` and `release` holds exactly the rows of earlier generations.
   */
  async hold(): Promise<WriteHold> {
    while (this.holding) await this.holding.done
    const release: Array<() => void> = []
    const drained: Promise<void>[] = [...this.direct]
    for (const b of this.batchers.values()) {
      const h = b.hold()
      release.push(h.release)
      drained.push(h.drained)
    }
    const done = new Promise<void>((r) => (this.releaseHold = r))
    this.holding = { release, done }
    const gen = ++this.gen
    let released = false
    return {
      gen,
      drained: Promise.all(drained).then(() => undefined),
      release: () => {
        if (released) return
        released = true
        for (const r of release) r()
        this.holding = null
        this.releaseHold?.()
      }
    }
  }

  /**
   * Writes chunks now, each as its own batch, outside the batchers (admin ingest: the caller answers only
   * after the store acknowledged), and returns the write generation they were written in. Waits while a
   * hold is on, so a live-state snapshot holds all of a request's rows or none. Counted in the tables'
   * written rows like any batch; a failure is reported to the caller (who may retry), not counted as lost.
   */
  async writeDirect(chunks: readonly EncodedChunk[], dedupToken: (chunk: EncodedChunk) => string): Promise<number> {
    while (this.holding) await this.holding.done
    const gen = this.gen
    const run = (async () => {
      for (const chunk of chunks) {
        await this.insert({
          table: chunk.table,
          columns: chunk.columns,
          format: 'TSV',
          data: Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength),
          dedupToken: dedupToken(chunk)
        })
        const counters = this.batcher(chunk.table).counters
        counters.written += chunk.rows
        counters.batches++
      }
    })()
    const tracked = run.catch(() => undefined)
    this.direct.add(tracked)
    try {
      await run
    } finally {
      this.direct.delete(tracked)
    }
    return gen
  }

  totals(): IngestTotals {
    const t = { queued: 0, written: 0, failed: 0, batches: 0, retries: 0, disk_full_retries: 0 }
    let waiting = false
    const tables: Record<string, TableCounters> = {}
    for (const [name, b] of this.batchers) {
      const c = b.counters
      t.queued += c.queued
      t.written += c.written
      t.failed += c.failed
      t.batches += c.batches
      t.retries += c.retries
      t.disk_full_retries += c.disk_full_retries
      waiting ||= c.waiting_for_disk > 0
      tables[name] = { ...c }
    }
    return { ...t, waiting_for_disk: waiting, tables }
  }

  /** Stops accepting, flushes every queued batch; retries end at `deadline` (epoch ms). */
  async close(deadline: number): Promise<void> {
    this.closing = true
    // a hold left by a rebuild that never finished must not keep the last batches back
    for (const r of this.holding?.release ?? []) r()
    this.holding = null
    this.releaseHold?.()
    await Promise.all([...this.batchers.values()].map((b) => b.close(deadline)))
  }
}
