/**
 * @module
 * The outbox's bookkeeping: the deliveries not yet ended (in memory, by id and per webhook), the counters,
 * and every state row written to the journals. A delivery enters with `track`, and leaves exactly once
 * through `finish` (delivered or failed) or `untrack`; `fail` ends one that never waited (queue full).
 *
 * `delivered` writes no delivery row of its own: the 2xx attempt row just journaled marks it
 * (outbox-queries.ts folds the attempt log into the state), so a delivery delivered at its first attempt
 * costs one delivery row and one attempt row.
 */
import type { Logger } from '../log.js'
import type { WebhookConfig } from './config.js'
import { deliveryRow, type AttemptRow, type Delivery } from './delivery.js'
import type { RowWriterLike } from './journal.js'
import type { Clock } from './scheduler.js'
import type { DeliveryResult } from './transport.js'
import type { VersionClock } from './version-clock.js'

/** Counters and gauges for /v1/health and the admin stats (docs/webhooks.md, "Counters"). */
export interface OutboxStats {
  events: number
  deliveries: number
  attempts: number
  delivered: number
  failed: number
  retries: number
  dropped_queue_full: number
  dropped_unstored: number
  webhooks_disabled: number
  store_errors: number
  pending: number
  in_flight: number
  writer_queued: number
}

export type OutboxCounters = Omit<OutboxStats, 'pending' | 'in_flight' | 'writer_queued'>

export interface Writers {
  /** `webhook_deliveries` rows */
  readonly deliveries: RowWriterLike
  /** `webhook_attempts` rows */
  readonly attempts: RowWriterLike
}

export class DeliveryLedger {
  /** non-terminal deliveries (waiting, in flight, or being journaled), by id */
  readonly pending = new Map<string, Delivery>()
  private readonly perWebhook = new Map<number, number>()
  private readonly origins = new Map<string, string>()
  readonly counters: OutboxCounters = {
    events: 0,
    deliveries: 0,
    attempts: 0,
    delivered: 0,
    failed: 0,
    retries: 0,
    dropped_queue_full: 0,
    dropped_unstored: 0,
    webhooks_disabled: 0,
    store_errors: 0
  }

  constructor(
    readonly writers: Writers,
    private readonly config: WebhookConfig,
    private readonly versions: VersionClock,
    private readonly clock: Clock,
    private readonly log: Logger
  ) {}

  /** Deliveries of `webhookId` not yet ended. */
  waitingFor(webhookId: number): number {
    return this.perWebhook.get(webhookId) ?? 0
  }

  /** Why a new delivery of `webhookId` cannot wait (WEBHOOK_MAX_PENDING bounds), or null. */
  refusal(webhookId: number): string | null {
    if (this.pending.size >= this.config.maxPending)
      return `queue_full: ${this.config.maxPending} deliveries already wait (WEBHOOK_MAX_PENDING)`
    if (this.waitingFor(webhookId) >= this.config.maxPendingPerWebhook)
      return `queue_full: ${this.config.maxPendingPerWebhook} deliveries already wait for this webhook`
    return null
  }

  track(d: Delivery): void {
    this.pending.set(d.id, d)
    this.perWebhook.set(d.webhookId, this.waitingFor(d.webhookId) + 1)
  }

  untrack(d: Delivery): void {
    if (!this.pending.delete(d.id)) return
    const n = this.waitingFor(d.webhookId) - 1
    if (n <= 0) this.perWebhook.delete(d.webhookId)
    else this.perWebhook.set(d.webhookId, n)
  }

  /** Journals the delivery's current state as a new row version; resolves once durable. */
  writeState(d: Delivery): Promise<void> {
    return this.writers.deliveries.push(deliveryRow(d, this.versions.next(), this.clock.now()))
  }

  /** A delivery that never waited (queue full): journaled as failed at once. */
  fail(d: Delivery, reason: string): void {
    this.counters.dropped_queue_full++
    this.log.warn({ webhook_id: d.webhookId, delivery_id: d.id, reason }, 'webhook delivery not queued')
    d.state = 'failed'
    d.nextAttemptAt = null
    d.lastError = reason
    this.counters.failed++
    void this.writeState(d)
  }

  /** Ends a delivery (see the module note: `delivered` is the 2xx attempt row, no delivery row). */
  finish(d: Delivery, state: 'delivered' | 'failed', reason: string): void {
    d.state = state
    d.nextAttemptAt = null
    if (reason !== '') d.lastError = reason
    this.counters[state]++
    this.untrack(d)
    if (state === 'failed') void this.writeState(d)
  }

  /** Journals one attempt and sets the delivery's last answer. */
  record(d: Delivery, res: DeliveryResult, started: number, next: number | null): void {
    d.lastStatus = res.status ?? 0
    d.lastError = res.error ?? ''
    const row: AttemptRow = {
      delivery_id: d.id,
      webhook_id: d.webhookId,
      event_id: d.eventId,
      event: d.event,
      attempt: d.attempts,
      trigger: d.trigger,
      at: started,
      duration_ms: Math.round(res.durationMs),
      status_code: res.status ?? 0,
      error: res.error ?? '',
      response_excerpt: res.excerpt,
      next_retry_at: next
    }
    void this.writers.attempts.push(row)
  }

  /** Rows journaled and not yet in the store, both tables. */
  get queued(): number {
    return this.writers.deliveries.queued + this.writers.attempts.queued
  }

  get full(): boolean {
    return this.writers.deliveries.full || this.writers.attempts.full
  }

  /** Both tables' rows pushed so far are in the store. */
  async flush(): Promise<void> {
    await Promise.all([this.writers.deliveries.flush(), this.writers.attempts.flush()])
  }

  /** The receiver key of a URL (its origin), cached. */
  originOf(url: string): string {
    let o = this.origins.get(url)
    if (o === undefined) {
      try {
        o = new URL(url).origin
      } catch {
        o = url
      }
      if (this.origins.size > 10_000) this.origins.clear()
      this.origins.set(url, o)
    }
    return o
  }

  storeError(err: unknown, what = 'webhook state not stored'): void {
    this.counters.store_errors++
    this.log.warn({ err: err instanceof Error ? err.message : String(err) }, what)
  }
}
