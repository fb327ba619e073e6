/**
 * @module
 * Daily call quotas per key and UTC day. The check and the increment happen in one synchronous step, so
 * concurrent requests can never overshoot (250 concurrent calls on a fresh 200-a-day key give exactly 200
 * successes). Counts are persisted as deltas to `api_usage` every QUOTA_FLUSH_MS (the server's supervisor runs `flush`) and at shutdown, and loaded at
 * start, so a restart keeps today's counts (a crash can lose at most the last FLUSH_MS of counts, in the
 * caller's favour).
 */
import type { Store } from '../store/store.js'
import { utcDay } from './utc-day.js'

const DAY_MS = 86_400_000

/** Persistence period, ms. */
export const QUOTA_FLUSH_MS = 1_000

interface Counter {
  /** UTC day as days since the epoch (cheaper than a date string on every call) */
  day: number
  used: number
  persisted: number
}

export type QuotaDecision =
  | { readonly ok: true; readonly used: number; readonly remaining: number | null }
  | { readonly ok: false; readonly used: number }

export class QuotaCounter {
  private readonly counters = new Map<string, Counter>()
  private flushSeq = 0
  private flushing: Promise<void> | undefined
  /** unpersisted deltas of days that have ended */
  private pendingOld: { keyId: string; day: number; delta: number }[] = []

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now
  ) {}

  /** Loads today's counts from the store. */
  async load(): Promise<void> {
    const now = this.now()
    const day = Math.floor(now / DAY_MS)
    const rows = await this.store.query<{ key_id: string; calls: number }>(
      'SELECT key_id, sum(calls) AS calls FROM api_usage WHERE day = {day:Date} GROUP BY key_id',
      { day: utcDay(now) }
    )
    for (const r of rows) this.counters.set(r.key_id, { day, used: r.calls, persisted: r.calls })
  }

  private counter(keyId: string): Counter {
    const day = Math.floor(this.now() / DAY_MS)
    let c = this.counters.get(keyId)
    if (!c || c.day !== day) {
      // a new day: yesterday's unflushed delta still goes out, under yesterday's date
      if (c && c.used > c.persisted) this.pendingOld.push({ keyId, day: c.day, delta: c.used - c.persisted })
      c = { day, used: 0, persisted: 0 }
      this.counters.set(keyId, c)
    }
    return c
  }

  /** Counts one call if the limit allows it. `limit` null = unlimited (still counted). */
  take(keyId: string, limit: number | null): QuotaDecision {
    const c = this.counter(keyId)
    if (limit !== null && c.used >= limit) return { ok: false, used: c.used }
    c.used++
    return { ok: true, used: c.used, remaining: limit === null ? null : limit - c.used }
  }

  /**
   * Takes back one call counted today (a handler refused it after it was counted: 403, 503). A refund that
   * races a flush leaves the stored count one higher until the key's next call, or after a restart (the
   * store's column takes no negative deltas).
   */
  refund(keyId: string): void {
    const c = this.counter(keyId)
    if (c.used > 0) c.used--
  }

  /** Calls counted today for a key. */
  used(keyId: string): number {
    return this.counter(keyId).used
  }

  /** Writes every unpersisted delta. Failed writes stay pending for the next flush. */
  flush(): Promise<void> {
    this.flushing ??= this.doFlush().finally(() => (this.flushing = undefined))
    return this.flushing
  }

  private async doFlush(): Promise<void> {
    const old = this.pendingOld
    this.pendingOld = []
    const rows = [...old]
    const marks: [Counter, number][] = []
    for (const [keyId, c] of this.counters) {
      if (c.used > c.persisted) {
        rows.push({ keyId, day: c.day, delta: c.used - c.persisted })
        marks.push([c, c.used])
      }
    }
    if (rows.length === 0) return
    const data = Buffer.from(rows.map((r) => `${r.keyId}\t${utcDay(r.day * DAY_MS)}\t${r.delta}\n`).join(''))
    try {
      await this.store.insert({
        table: 'api_usage',
        columns: ['key_id', 'day', 'calls'],
        format: 'TSV',
        data,
        dedupToken: `usage:${process.pid}:${this.now()}:${this.flushSeq++}`
      })
    } catch (err) {
      this.pendingOld = [...old, ...this.pendingOld]
      throw err
    }
    for (const [c, used] of marks) c.persisted = used
  }

  async stop(): Promise<void> {
    await this.flush()
  }
}
