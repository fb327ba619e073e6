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
import { sqlTime } from '../store/sql-time.js'
import { compileTsvRow } from '../runtime/tsv-row.js'

const DAY_MS = 86_400_000

/** A count to add to a key's day (epoch day number) in a usage table. */
interface DayDelta {
  readonly keyId: string
  readonly day: number
  readonly delta: number
}

/** `key_id, day, count` lines (api_usage, api_throttled), through the one TSV row encoder. */
const DAY_ROW = compileTsvRow<{ keyId: string; day: string; delta: number }>(
  [
    { name: 'keyId', cell: 'text' },
    { name: 'day', cell: 'raw' },
    { name: 'delta', cell: 'raw' }
  ],
  '\n'
)
/** `key_id, last_used_at` lines (api_key_last_used). */
const LAST_USED_ROW = compileTsvRow<{ keyId: string; at: string }>(
  [
    { name: 'keyId', cell: 'text' },
    { name: 'at', cell: 'raw' }
  ],
  '\n'
)

function dayRows(rows: readonly DayDelta[]): Buffer {
  return Buffer.from(rows.map((r) => DAY_ROW({ keyId: r.keyId, day: utcDay(r.day * DAY_MS), delta: r.delta })).join(''))
}

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
  // accounts (docs/accounts.md): 429s per key and day, and each key's last counted call
  /** calls refused with 429 quota_exceeded, per key; same day logic as `counters` */
  private readonly refusals = new Map<string, Counter>()
  private pendingRefusals: { keyId: string; day: number; delta: number }[] = []
  /**
   * epoch ms of each key's last counted call, in a box per key updated in place: a double set into a Map
   * is a new heap number on every counted call, a double field is not (the hot reads' garbage, docs/benchmarks.md
   * "Hot reads"); `lastUsedDirty` holds the keys not yet written
   */
  private readonly lastUsedAt = new Map<string, { ms: number }>()
  private readonly lastUsedDirty = new Set<string>()

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
    // the accounts dashboard's figures: today's 429s per key and each key's last counted call
    const [refused, last] = await Promise.all([
      this.store.query<{ key_id: string; throttled: number }>(
        'SELECT key_id, sum(throttled) AS throttled FROM api_throttled WHERE day = {day:Date} GROUP BY key_id',
        { day: utcDay(now) }
      ),
      this.store.query<{ key_id: string; ms: number }>(
        'SELECT key_id, toUnixTimestamp64Milli(max(last_used_at)) AS ms FROM api_key_last_used GROUP BY key_id'
      )
    ])
    for (const r of refused) {
      const n = Number(r.throttled)
      this.refusals.set(r.key_id, { day, used: n, persisted: n })
    }
    for (const r of last) if (!this.lastUsedAt.has(r.key_id)) this.lastUsedAt.set(r.key_id, { ms: Number(r.ms) })
  }

  private counter(keyId: string, table = this.counters, pending = this.pendingOld, now = this.now()): Counter {
    const day = Math.floor(now / DAY_MS)
    let c = table.get(keyId)
    if (!c || c.day !== day) {
      // a new day: yesterday's unflushed delta still goes out, under yesterday's date
      if (c && c.used > c.persisted) pending.push({ keyId, day: c.day, delta: c.used - c.persisted })
      c = { day, used: 0, persisted: 0 }
      table.set(keyId, c)
    }
    return c
  }

  // accounts (docs/accounts.md)
  /** Counts a call refused with 429 quota_exceeded (the usage view's `throttled`). */
  refused(keyId: string): void {
    this.counter(keyId, this.refusals, this.pendingRefusals).used++
  }

  /** Calls refused with 429 today for a key. */
  refusedToday(keyId: string): number {
    return this.counter(keyId, this.refusals, this.pendingRefusals).used
  }

  /** Epoch ms of a key's last counted call, or null when it was never used. */
  lastUsed(keyId: string): number | null {
    return this.lastUsedAt.get(keyId)?.ms ?? null
  }

  /**
   * Calls and 429s per key and UTC day for the `days` days before today (today's figures are `used` and
   * `refusedToday`, exact in memory). Days without calls are absent.
   */
  async history(
    keyIds: readonly string[],
    days: number
  ): Promise<{ key_id: string; day: string; calls: number; throttled: number }[]> {
    if (keyIds.length === 0) return []
    const today = utcDay(this.now())
    const since = utcDay(this.now() - days * DAY_MS)
    const rows = await this.store.query<{ key_id: string; day: string; calls: number; throttled: number }>(
      `SELECT key_id, toString(day) AS day, sum(calls) AS calls, sum(throttled) AS throttled FROM (
         SELECT key_id, day, calls, 0 AS throttled FROM api_usage
         WHERE key_id IN {keys:Array(String)} AND day >= {since:Date} AND day < {today:Date}
         UNION ALL
         SELECT key_id, day, 0 AS calls, throttled FROM api_throttled
         WHERE key_id IN {keys:Array(String)} AND day >= {since:Date} AND day < {today:Date}
       ) GROUP BY key_id, day`,
      { keys: keyIds, since, today }
    )
    return rows.map((r) => ({ ...r, calls: Number(r.calls), throttled: Number(r.throttled) }))
  }

  /** Writes the unpersisted 429 counts and last-use times (part of `flush`). */
  private async flushAccounts(): Promise<void> {
    const old = this.pendingRefusals
    this.pendingRefusals = []
    const rows = [...old]
    const marks: [Counter, number][] = []
    for (const [keyId, c] of this.refusals) {
      if (c.used > c.persisted) {
        rows.push({ keyId, day: c.day, delta: c.used - c.persisted })
        marks.push([c, c.used])
      }
    }
    const used = [...this.lastUsedDirty].map((k) => [k, this.lastUsedAt.get(k)!.ms] as const)
    this.lastUsedDirty.clear()
    try {
      if (rows.length > 0) {
        await this.store.insert({
          table: 'api_throttled',
          columns: ['key_id', 'day', 'throttled'],
          format: 'TSV',
          data: dayRows(rows),
          dedupToken: `throttled:${process.pid}:${this.now()}:${this.flushSeq++}`
        })
      }
      for (const [c, n] of marks) c.persisted = n
    } catch (err) {
      this.pendingRefusals = [...old, ...this.pendingRefusals]
      for (const [k] of used) this.lastUsedDirty.add(k)
      throw err
    }
    if (used.length === 0) return
    try {
      await this.store.insert({
        table: 'api_key_last_used',
        columns: ['key_id', 'last_used_at'],
        format: 'TSV',
        data: Buffer.from(used.map(([k, ms]) => LAST_USED_ROW({ keyId: k, at: sqlTime(ms) })).join('')),
        dedupToken: `last-used:${process.pid}:${this.now()}:${this.flushSeq++}`
      })
    } catch (err) {
      for (const [k] of used) this.lastUsedDirty.add(k)
      throw err
    }
  }

  /** Counts one call if the limit allows it. `limit` null = unlimited (still counted). */
  take(keyId: string, limit: number | null): QuotaDecision {
    if (limit === null) return { ok: true, used: this.add(keyId), remaining: null }
    const now = this.now() // one clock read per call (hot path)
    const c = this.counter(keyId, this.counters, this.pendingOld, now)
    if (c.used >= limit) return { ok: false, used: c.used }
    this.counted(keyId, c, now)
    return { ok: true, used: c.used, remaining: limit - c.used }
  }

  /** Counts one call of a key without a limit; returns the day's count (no decision object: hot path). */
  add(keyId: string): number {
    const now = this.now() // one clock read per call
    const c = this.counter(keyId, this.counters, this.pendingOld, now)
    this.counted(keyId, c, now)
    return c.used
  }

  private counted(keyId: string, c: Counter, now: number): void {
    c.used++
    // accounts: the key's last use
    const last = this.lastUsedAt.get(keyId)
    if (last) last.ms = now
    else this.lastUsedAt.set(keyId, { ms: now })
    this.lastUsedDirty.add(keyId)
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
    this.flushing ??= Promise.all([this.doFlush(), this.flushAccounts()])
      .then(() => undefined)
      .finally(() => (this.flushing = undefined))
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
    const data = dayRows(rows)
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

  /** Calls counted but not yet persisted (what a stop without the final flush would lose). */
  unflushed(): number {
    let n = 0
    for (const r of this.pendingOld) n += r.delta
    for (const c of this.counters.values()) n += c.used - c.persisted
    return n
  }

  async stop(): Promise<void> {
    await this.flush()
  }
}
