/**
 * @module
 * Stores every event published on the SignalBus (the engine's and forwarded alerts) in `signal_events`.
 * `offer` never blocks the publisher: events wait in a bounded queue; when it is full the newest is
 * dropped and counted (`dropped`, shown in /v1/health; the event still reached the stream and webhooks).
 * `run` is the writing loop under the supervisor: it inserts batches of queued events, and a failing insert
 * throws so the supervisor counts it and restarts the loop after a backoff. The failed batch is kept, and
 * retried as the same bytes with the same dedup token, so nothing is lost or doubled while the store is down.
 */
import type { Store } from '../store/store.js'
import type { SignalEvent } from './signal-event.js'
import { insertBatch } from './signal-store.js'

/** Events held at most while the store is down: hours of a busy market's events at a few hundred bytes each. */
export const MAX_QUEUED = 10_000
/** Events per insert at most: small inserts, one part each. */
const MAX_BATCH = 500
/** Inserts tried at most when the loop stops, so a shutdown stores what fired just before it. */
const FINAL_FLUSH_BATCHES = 4

export interface SignalWriterStats {
  /** events waiting to be stored */
  readonly queued: number
  readonly stored: number
  /** events dropped because the queue was full */
  readonly dropped: number
  /** inserts that failed (retried) */
  readonly write_errors: number
}

export class SignalWriter {
  private queue: SignalEvent[] = []
  /** the batch being inserted; kept across failures so its retry has the same token */
  private batch: readonly SignalEvent[] | null = null
  private wake: (() => void) | null = null
  private stored = 0
  private dropped = 0
  private writeErrors = 0

  constructor(
    private readonly store: Store,
    private readonly maxQueued = MAX_QUEUED
  ) {}

  /** Queues an event for storage (a SignalBus listener). Never throws, never waits. */
  offer(e: SignalEvent): void {
    if (this.pending >= this.maxQueued) {
      this.dropped++
      return
    }
    this.queue.push(e)
    this.wake?.()
  }

  get pending(): number {
    return this.queue.length + (this.batch?.length ?? 0)
  }

  /** Inserts until the queue is empty. Throws when an insert fails (the batch stays for the retry). */
  async flush(maxBatches = Number.POSITIVE_INFINITY): Promise<void> {
    for (let n = 0; n < maxBatches && this.pending > 0; n++) {
      if (!this.batch) {
        this.batch = this.queue.slice(0, MAX_BATCH)
        this.queue = this.queue.slice(this.batch.length)
      }
      try {
        await this.store.insert(insertBatch(this.batch))
      } catch (err) {
        this.writeErrors++
        throw err
      }
      this.stored += this.batch.length
      this.batch = null
    }
  }

  /** The writing loop: waits for events, stores them; on abort, a last bounded flush. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.pending === 0) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            this.wake = null
            signal.removeEventListener('abort', done)
            resolve()
          }
          this.wake = done
          signal.addEventListener('abort', done)
        })
        continue
      }
      await this.flush()
    }
    // stopping: what fired last is stored if the store answers; a failure here is only counted
    await this.flush(FINAL_FLUSH_BATCHES).catch(() => undefined)
  }

  stats(): SignalWriterStats {
    return { queued: this.pending, stored: this.stored, dropped: this.dropped, write_errors: this.writeErrors }
  }
}
