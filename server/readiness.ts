/**
 * @module
 * Readiness: whether data answers can be trusted yet. Until the live state is built from the store and
 * every source has finished its warm-up (the demo market's first backfill), data endpoints answer
 * `503 warming_up` with `Retry-After`, `GET /v1/ready` answers 503 and `/v1/health` says `ready: false`
 * with what it waits for (liveness stays 200). Once ready it stays ready: later rebuilds (after an import)
 * keep serving the previous state until the new one is swapped in.
 */
import { ApiError } from '../engine/errors.js'
import type { Source } from '../ingest/sources/source.js'

/** Seconds a client is told to wait before retrying a 503 warming_up. */
export const WARMING_RETRY_AFTER_S = 5
/** How often readiness is re-checked while warming up, ms (sources report their warm-up by polling). */
const POLL_MS = 100

export class Readiness {
  private liveBuilt = false
  private isReady = false
  private onReady: (() => void) | undefined

  constructor(private readonly sources: () => readonly Source[]) {}

  /** The first build of the live state finished. */
  liveStateBuilt(): void {
    this.liveBuilt = true
    this.poll()
  }

  /** Called once, the moment the service becomes ready (logging, `Running.ready`). */
  whenReady(cb: () => void): void {
    this.onReady = cb
    if (this.poll()) return
    const timer = setInterval(() => {
      if (this.poll()) clearInterval(timer)
    }, POLL_MS)
    timer.unref()
  }

  get ready(): boolean {
    return this.isReady || this.poll()
  }

  /** What readiness waits for, in words (empty once ready). */
  waitingFor(): string[] {
    if (this.isReady) return []
    const out: string[] = []
    if (!this.liveBuilt) out.push('live state')
    for (const s of this.sources()) {
      const w = s.warmingUp?.()
      if (w) out.push(`${s.name}: ${w}`)
    }
    return out
  }

  /** 503 `warming_up` when not ready yet (data endpoints, stream upgrades). */
  check(): void {
    if (this.ready) return
    throw new ApiError(
      'warming_up',
      `the service is starting and its data is not complete yet (waiting for ${this.waitingFor().join(', ')}); retry in ${WARMING_RETRY_AFTER_S} s`,
      { headers: { 'retry-after': String(WARMING_RETRY_AFTER_S) } }
    )
  }

  private poll(): boolean {
    if (this.isReady) return true
    if (this.waitingFor().length > 0) return false
    this.isReady = true
    this.onReady?.()
    return true
  }
}
