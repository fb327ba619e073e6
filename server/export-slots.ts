/**
 * @module
 * The cap on bulk exports streaming at once (`EXPORT_MAX_CONCURRENT`). An export holds one store
 * connection from its first byte until its client has read the last one, which a slow client can make
 * minutes; without a cap a few slow clients would hold every chDB session and stall ingest and every other
 * read. Past the cap an export answers 503 at once with `Retry-After`, before any work.
 */
import { ApiError } from '../engine/errors.js'
import { Semaphore } from '../engine/runtime/semaphore.js'

/** Seconds a client is told to wait when every export slot is taken. */
const RETRY_AFTER_S = 5

export class ExportSlots {
  /** a slot is a permit; nobody waits for one (a full house answers 503) */
  private readonly slots: Semaphore
  /** exports refused with 503 because every slot was taken */
  rejected = 0
  /** exports restarted with FINAL everywhere because a pinned part was replaced (engine/export/export-run.ts) */
  pinRestarts = 0

  constructor(readonly max: number) {
    this.slots = new Semaphore(max, 0)
  }

  /** Exports streaming now. */
  get inUse(): number {
    return this.slots.inUse
  }

  /** Figures for /v1/health. */
  stats(): { active: number; max: number; rejected: number; pin_restarts: number } {
    return { active: this.slots.inUse, max: this.max, rejected: this.rejected, pin_restarts: this.pinRestarts }
  }

  /** Takes a slot or throws `unavailable` (503); the returned function gives it back (once). */
  take(): () => void {
    if (!this.slots.tryAcquire()) {
      this.rejected++
      throw new ApiError(
        'unavailable',
        `${this.max} exports are already streaming (EXPORT_MAX_CONCURRENT); retry in a few seconds`,
        { headers: { 'retry-after': String(RETRY_AFTER_S) } }
      )
    }
    let held = true
    return () => {
      if (held) {
        held = false
        this.slots.release()
      }
    }
  }
}

/**
 * `body` with `release` called once when it ends: read to the end, failed, or stopped early (`return()`,
 * which the HTTP layer calls when the client goes away).
 */
export function releasingWhenDone(
  body: AsyncIterableIterator<Uint8Array>,
  release: () => void
): AsyncIterableIterator<Uint8Array> {
  const iterator: AsyncIterableIterator<Uint8Array> = {
    [Symbol.asyncIterator]: () => iterator,
    async next() {
      try {
        const r = await body.next()
        if (r.done) release()
        return r
      } catch (err) {
        release()
        throw err
      }
    },
    async return() {
      try {
        await body.return?.()
      } finally {
        release()
      }
      return { done: true, value: undefined }
    }
  }
  return iterator
}
