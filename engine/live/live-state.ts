/**
 * @module
 * In-memory state behind the hot read endpoints (DESIGN.md "hot reads"), updated as live records arrive
 * and rebuilt from the store at start and after a backfill. Records reach it from sources (live windows)
 * and from admin ingest through a bounded consumer queue (`offer`): never inside the write path, a full
 * queue drops and counts, and an update that throws is counted and skipped. The queue drains in a
 * microtask, right after the producer's current step: a live record reaches the books and the push
 * stream in the event-loop turn that normalized it; a setImmediate would wait for the rest of the poll
 * phase's I/O, hundreds of ms under load (docs/benchmarks.md "Wire"). Rebuilds lose nothing offered meanwhile and count nothing twice (`rebuild`).
 */
import type { Store } from '../store/store.js'
import type { NormalizedRecord, OnchainMetricRecord, OptionQuoteRecord, WhaleTransferRecord } from '../records/types.js'
import { OptionsBook } from './options-book.js'
import { loadChainQuotes } from '../options/chain-load.js'
import { ScreenerBook } from './screener-book.js'
import { OnchainBook } from './onchain-book.js'
import { BaseChanges } from './base-changes.js'
import { WhaleWindow, WHALE_WINDOW_MS } from './whale-window.js'
import { FundingHistory } from './funding-history.js'
import { fillBooks, loadBooks, type BooksLoad } from './books-load.js'
import { liveBounds } from './load-bounds.js'
import { livePath } from './path-probe.js'
import type { WriteHold } from '../store/write-hold.js'

/** What a rebuild read from the store, applied to the books in one synchronous step. */
interface Loaded {
  readonly quotes: readonly OptionQuoteRecord[]
  /** the screener, on-chain and whale books (engine/live/books-load.ts, the live bounds) */
  readonly books: BooksLoad
}

/** Sees every applied batch (after the books took it) and every rebuild. */
export interface LiveObserver {
  apply(records: readonly NormalizedRecord[]): void
  rebuilt(): Promise<void>
}

/** What the live state needs of the write path to rebuild exactly (ingest/pipeline.ts `hold`). */
export interface WriteGate {
  hold(): Promise<WriteHold>
}

/** Records the consumer queue holds at most; an offer beyond it is dropped and counted. */
const LIVE_QUEUE_MAX_RECORDS = 200_000
/** Records a rebuild buffers at most while it reads the store; beyond it they are dropped and counted. */
const REBUILD_BUFFER_MAX_RECORDS = 500_000

/** Offers taken while a rebuild runs, with their generations (the hold's is known only once it is on). */
interface RebuildBuffer {
  readonly batches: { readonly records: readonly NormalizedRecord[]; readonly gen: number }[]
  /** records in `batches` */
  size: number
  /** records that did not fit, by generation: only those of the hold's generation or later count as lost */
  readonly dropped: { readonly gen: number; readonly records: number }[]
}

interface Offer {
  readonly records: readonly NormalizedRecord[]
  readonly gen: number
  /** receive time of the oldest venue message behind the records, epoch ms (path-probe.ts) */
  readonly recvTs?: number | undefined
  readonly done: () => void
}

export interface LiveCounters {
  /** records applied to the books */
  applied: number
  /** records dropped because the consumer queue was full (they are stored; a rebuild brings them back) */
  dropped: number
  /** batches whose application threw (counted and skipped; the process goes on) */
  apply_errors: number
  /** records offered during a rebuild that did not fit its replay buffer */
  rebuild_dropped: number
  rebuilds: number
  rebuild_errors: number
}

export class LiveState {
  readonly options = new OptionsBook()
  readonly screener = new ScreenerBook()
  readonly onchain = new OnchainBook()
  readonly whales = new WhaleWindow()
  readonly fundingHistory: FundingHistory
  readonly counters: LiveCounters = {
    applied: 0,
    dropped: 0,
    apply_errors: 0,
    rebuild_dropped: 0,
    rebuilds: 0,
    rebuild_errors: 0
  }
  /** epoch ms of the last rebuild from the store */
  rebuiltAt = 0
  /** bumped on every applied batch and rebuild: caches of derived answers compare it */
  version = 0
  /** which bases' confirmation inputs changed (per-base counterpart of `version`) */
  readonly changes = new BaseChanges()
  /** set by the server: holds writes while a rebuild reads its snapshot (absent: no pipeline, tests) */
  writes: WriteGate | undefined
  /** called with an error the live state counted (logging) */
  onError: ((what: string, err: unknown) => void) | undefined

  private readonly observers: LiveObserver[] = []
  private readonly queue: Offer[] = []
  private queuedRecords = 0
  private draining = false
  /** offers of an earlier generation are in the books' snapshot already */
  private booksGen = 0
  /** while a rebuild runs: the offers taken since it began, to replay those of its hold's generation or later */
  private buffer: RebuildBuffer | null = null
  private running: Promise<void> | null = null
  private next: Promise<void> | null = null

  constructor(readonly store: Store) {
    this.fundingHistory = new FundingHistory(store)
  }

  /** Registers an observer of applied records and rebuilds (the push stream). */
  observe(o: LiveObserver): void {
    this.observers.push(o)
  }

  /** Records in the consumer queue now. */
  get queued(): number {
    return this.queuedRecords
  }

  /**
   * Offers records to the bounded consumer (ingest/pipeline.ts LiveSink). Never throws; resolves once they
   * are applied, or at once when the queue is full (then they are dropped and counted).
   */
  offer(records: readonly NormalizedRecord[], gen: number, recvTs?: number): Promise<void> {
    if (records.length === 0) return Promise.resolve()
    if (this.queuedRecords > 0 && this.queuedRecords + records.length > LIVE_QUEUE_MAX_RECORDS) {
      this.counters.dropped += records.length
      return Promise.resolve()
    }
    this.queuedRecords += records.length
    const applied = new Promise<void>((done) => this.queue.push({ records, gen, recvTs, done }))
    if (!this.draining) {
      this.draining = true
      queueMicrotask(() => this.drain())
    }
    return applied
  }

  /** Applies records now, as the newest generation (tests and tools without a pipeline). */
  apply(records: readonly NormalizedRecord[]): void {
    this.take({ records, gen: Number.MAX_SAFE_INTEGER, done: () => undefined })
  }

  private drain(): void {
    for (let o = this.queue.shift(); o; o = this.queue.shift()) {
      this.queuedRecords -= o.records.length
      this.take(o)
    }
    this.draining = false
  }

  private take(o: Offer): void {
    try {
      // an offer of an earlier generation than the books' snapshot is in that snapshot already
      if (o.gen >= this.booksGen) this.applyBooks(o.records)
      const b = this.buffer
      if (b) {
        if (b.size + o.records.length <= REBUILD_BUFFER_MAX_RECORDS) {
          b.batches.push({ records: o.records, gen: o.gen })
          b.size += o.records.length
        } else b.dropped.push({ gen: o.gen, records: o.records.length })
      }
      livePath.mark('applied', o.recvTs)
      // observers see the records after the books, so what they derive reflects them
      for (const obs of this.observers) obs.apply(o.records)
      livePath.markPublished(o.recvTs)
    } catch (err) {
      this.counters.apply_errors++
      this.onError?.('live update', err)
    } finally {
      o.done()
    }
  }

  private applyBooks(records: readonly NormalizedRecord[]): void {
    this.version++
    this.changes.applied(records)
    this.counters.applied += records.length
    const quotes: OptionQuoteRecord[] = []
    const onchain: OnchainMetricRecord[] = []
    const whales: WhaleTransferRecord[] = []
    for (const r of records) {
      if (r.kind === 'option_quote') quotes.push(r)
      else if (r.kind === 'onchain_metric') onchain.push(r)
      else if (r.kind === 'whale_transfer') whales.push(r)
    }
    if (quotes.length) this.options.apply(quotes)
    this.screener.apply(records)
    this.fundingHistory.applied(records)
    if (onchain.length) this.onchain.apply(onchain)
    if (whales.length) this.whales.apply(whales)
  }

  /**
   * Asks for a rebuild (after a backfill or a bulk load); resolves once a rebuild that started after the
   * request has ended. Never rejects: a failure is counted (the books keep their state).
   */
  requestRebuild(): Promise<void> {
    return this.rebuild().catch((err: unknown) => this.onError?.('live rebuild', err))
  }

  /**
   * Reloads every part of the state from the store (at start, after backfills and bulk loads) without
   * losing a record offered meanwhile: under a write hold, the store holds exactly the rows of earlier
   * generations; the books are rebuilt from it in one synchronous step and the offers of the hold's
   * generation or later that arrived meanwhile are replayed into them. A request during a rebuild runs
   * one more after it (requests coalesce). Rejects when the store fails (the books keep their state).
   */
  rebuild(): Promise<void> {
    if (!this.running) {
      this.running = this.rebuildOnce().finally(() => (this.running = null))
      return this.running
    }
    // the running rebuild's snapshot may predate the caller's data: one more after it, shared
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null
        return this.rebuild()
      })
    return this.next
  }

  private async rebuildOnce(): Promise<void> {
    // set before the hold starts a generation: no offer of the new generation can be taken unbuffered
    const buffer: RebuildBuffer = { batches: [], size: 0, dropped: [] }
    this.buffer = buffer
    let hold: WriteHold | undefined
    try {
      hold = this.writes
        ? await this.writes.hold()
        : { gen: this.booksGen, drained: Promise.resolve(), release: () => undefined }
      await hold.drained
      const loaded = await this.load()
      // from here synchronous: no offer is taken between the reset and the replay
      this.reset(loaded)
      const gen = hold.gen
      this.booksGen = gen
      for (const b of buffer.batches) if (b.gen >= gen) this.applyBooks(b.records)
      for (const d of buffer.dropped) if (d.gen >= gen) this.counters.rebuild_dropped += d.records
      this.counters.rebuilds++
    } catch (err) {
      this.counters.rebuild_errors++
      throw err
    } finally {
      this.buffer = null
      hold?.release()
    }
    this.fundingHistory.clear()
    this.rebuiltAt = Date.now()
    this.version++
    this.changes.all()
    for (const o of this.observers) await o.rebuilt()
  }

  /** Everything a rebuild reads from the store. */
  private async load(): Promise<Loaded> {
    // the chain snapshots of now (engine/options/chain-at.ts), read as of no bound: the live book's state
    const quotes = await loadChainQuotes(this.store, { asOfMs: null, knownByMs: null }, Date.now())
    return {
      quotes,
      books: await loadBooks(this.store, liveBounds())
    }
  }

  private reset(l: Loaded): void {
    this.options.reset(l.quotes)
    fillBooks(this, l.books)
  }
}
