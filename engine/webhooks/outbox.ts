/**
 * @module
 * The durable outbox of webhook deliveries (docs/webhooks.md, "Durability"). An event from the signal bus
 * becomes one delivery row per matching webhook, stored (one insert, atomic) before its first attempt.
 * Attempts are appended to `webhook_attempts`; a retry or a failure writes the delivery row again with a
 * higher version; a 2xx attempt in the log is what marks a delivery delivered (no row of its own). Both
 * tables are written through group-committing writers. At start, deliveries still `pending` are loaded
 * and resumed at their next attempt time. A crash between an attempt and the write of its result repeats
 * that attempt after the restart: delivery is at-least-once, and receivers dedupe on `webhook-id` (the
 * delivery id, the same in every attempt).
 *
 * Every delivery ends `delivered` or `failed`. Nothing is sent to a webhook that is not active: leaving
 * `active` fails its waiting deliveries, and each attempt checks the state again just before sending.
 *
 * Bounded: at most `maxPending` deliveries wait (and `maxPendingPerWebhook` per webhook); more are stored
 * as `failed` (`queue_full`, counted, redeliverable). When the store falls behind, attempts stop starting
 * until the writers drain; events arriving while the delivery writer is full are counted as dropped
 * (`dropped_unstored`) and logged, never silently.
 */
import type { Logger } from '../log.js'
import type { WebhookConfig } from '../config.js'
import type { SignalEvent } from '../signals/signal-event.js'
import type { Store } from '../store/store.js'
import { ApiError } from '../errors.js'
import {
  ATTEMPT_COLUMNS,
  DELIVERY_COLUMNS,
  deliveryRow,
  newDelivery,
  type AttemptRow,
  type Delivery,
  type DeliveryState
} from './delivery.js'
import { matching } from './matching.js'
import {
  deliveryView,
  findDelivery,
  listDeliveries,
  loadPending,
  type DeliveryPage,
  type DeliveryView
} from './outbox-queries.js'
import { payloadBytes } from './payload.js'
import type { WebhookRegistry } from './registry.js'
import { outcomeOf, retryAfterDelayMs, retryDelayMs } from './retry-schedule.js'
import { Scheduler, systemClock, type Clock } from './scheduler.js'
import { RowWriter } from './row-writer.js'
import { signedHeaders } from './signing.js'
import type { DeliveryResult, WebhookTransport } from './transport.js'
import type { VersionClock } from './version-clock.js'
import type { Webhook } from './webhook.js'

/** Rows a writer holds before attempts pause (backpressure) and new events count as dropped. */
const WRITER_MAX_ROWS = 200_000

export interface OutboxOptions {
  readonly store: Store
  readonly registry: WebhookRegistry
  readonly transport: WebhookTransport
  readonly config: WebhookConfig
  readonly versions: VersionClock
  readonly log: Logger
  readonly clock?: Clock
  readonly random?: () => number
}

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

export interface TestResult {
  readonly webhook_id: number
  readonly delivery_id: string
  readonly delivered: boolean
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly response_excerpt: string
}

export class Outbox {
  private readonly store: Store
  private readonly registry: WebhookRegistry
  private readonly transport: WebhookTransport
  private readonly config: WebhookConfig
  private readonly versions: VersionClock
  private readonly log: Logger
  private readonly clock: Clock
  private readonly random: () => number
  private readonly deliveriesOut: RowWriterLike
  private readonly attemptsOut: RowWriterLike
  private readonly scheduler: Scheduler<Delivery>
  /** non-terminal deliveries in memory (waiting, in flight, or being stored) */
  private readonly pending = new Map<string, Delivery>()
  private readonly pendingPerWebhook = new Map<number, number>()
  private readonly origins = new Map<string, string>()
  private readonly inFlight = new Set<Promise<void>>()
  private stopped = false
  private readonly counters = {
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

  constructor(o: OutboxOptions, writers?: { deliveries: RowWriterLike; attempts: RowWriterLike }) {
    this.store = o.store
    this.registry = o.registry
    this.transport = o.transport
    this.config = o.config
    this.versions = o.versions
    this.log = o.log
    this.clock = o.clock ?? systemClock
    this.random = o.random ?? Math.random
    const onError = (err: unknown): void => {
      this.counters.store_errors++
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhook outbox write failed; retrying')
    }
    this.deliveriesOut =
      writers?.deliveries ?? new RowWriter(o.store, 'webhook_deliveries', DELIVERY_COLUMNS, WRITER_MAX_ROWS, onError)
    this.attemptsOut =
      writers?.attempts ?? new RowWriter(o.store, 'webhook_attempts', ATTEMPT_COLUMNS, WRITER_MAX_ROWS, onError)
    this.scheduler = new Scheduler<Delivery>(this.clock, o.config.concurrency, o.config.receiverConcurrency, (d) =>
      this.attempt(d)
    )
    this.registry.onLeaveActive = (w) => this.endWaiting(w)
  }

  /** Loads the deliveries a previous run left pending and schedules them. Returns how many. */
  async resume(): Promise<number> {
    const rows = await loadPending(this.store, (id) => {
      const w = this.registry.get(id)
      return w ? this.originOf(w.url) : ''
    })
    const now = this.clock.now()
    for (const d of rows) {
      if (this.pending.has(d.id)) continue
      const w = this.registry.get(d.webhookId)
      if (!w || w.state !== 'active') {
        this.finish(d, 'failed', w ? `webhook_${w.state}: ${w.stateReason}` : 'webhook_removed')
        continue
      }
      this.track(d)
      this.scheduler.add(d, Math.max(now, d.nextAttemptAt ?? now))
    }
    return rows.length
  }

  /** The bus listener: stores and schedules the deliveries of `e` (errors are logged, never thrown). */
  readonly onEvent = (e: SignalEvent): void => {
    this.accept(e).catch((err: unknown) => {
      this.log.error(
        { err: err instanceof Error ? err.message : String(err), event_id: e.id },
        'webhook event not stored'
      )
    })
  }

  /** Stores the deliveries of `e` and schedules them; resolves with how many webhooks it matched once stored. */
  async accept(e: SignalEvent): Promise<number> {
    if (this.stopped) return 0
    const targets = matching(this.registry.active(), e)
    if (targets.length === 0) return 0
    this.counters.events++
    if (this.deliveriesOut.full) {
      this.counters.dropped_unstored += targets.length
      this.log.error(
        { event_id: e.id, deliveries: targets.length },
        'webhook outbox full (store behind): event dropped'
      )
      return 0
    }
    const now = this.clock.now()
    const fresh: Delivery[] = []
    let stored: Promise<void> = Promise.resolve()
    for (const w of targets) {
      const d = newDelivery(e, w, this.originOf(w.url), now)
      if (this.pending.has(d.id)) continue // the same event published twice
      this.counters.deliveries++
      if (this.pending.size >= this.config.maxPending) {
        this.fail(d, `queue_full: ${this.config.maxPending} deliveries already wait (WEBHOOK_MAX_PENDING)`)
      } else if ((this.pendingPerWebhook.get(w.id) ?? 0) >= this.config.maxPendingPerWebhook) {
        this.fail(d, `queue_full: ${this.config.maxPendingPerWebhook} deliveries already wait for this webhook`)
      } else {
        this.track(d)
        fresh.push(d)
        stored = this.deliveriesOut.push(deliveryRow(d, this.versions.next(), now))
      }
    }
    await stored
    for (const d of fresh) this.schedule(d)
    return targets.length
  }

  /** Sends a signed test event now (outside the queue) and reports the receiver's answer. */
  async test(w: Webhook): Promise<TestResult> {
    if (w.state !== 'active') throw notActive(w)
    const now = this.clock.now()
    const e = {
      id: `test_${now}_${Math.floor(this.random() * 1e9)}`,
      event: 'TEST',
      ts: now,
      symbol: 'BTC',
      direction: 'long' as const,
      confidence: 'TEST',
      composite: 0
    }
    const d = newDelivery(e, w, this.originOf(w.url), now, 'test')
    this.counters.deliveries++
    await this.deliveriesOut.push(deliveryRow(d, this.versions.next(), now))
    const res = await this.send(d, w)
    this.record(d, res, now, null)
    d.state = res.status !== null && res.status >= 200 && res.status < 300 ? 'delivered' : 'failed'
    d.nextAttemptAt = null
    this.counters[d.state === 'delivered' ? 'delivered' : 'failed']++
    // delivered: the 2xx in the attempt log says so (see finish)
    if (d.state === 'failed') void this.deliveriesOut.push(deliveryRow(d, this.versions.next(), this.clock.now()))
    return {
      webhook_id: w.id,
      delivery_id: d.id,
      delivered: d.state === 'delivered',
      status_code: res.status,
      error: res.error,
      duration_ms: res.durationMs,
      response_excerpt: res.excerpt
    }
  }

  /** Starts a new round of attempts for a delivered or failed delivery of `w`. */
  async redeliver(w: Webhook, id: string): Promise<DeliveryView> {
    if (w.state !== 'active') throw notActive(w)
    if (this.pending.has(id)) {
      throw new ApiError('invalid_parameter', `delivery ${id} is still pending; it is being delivered`, {
        param: 'delivery_id'
      })
    }
    const d = await findDelivery(this.store, w.id, id, this.originOf(w.url))
    if (!d) throw new ApiError('not_found', `no delivery ${id} for webhook ${w.id}`)
    if (this.pending.has(id) || d.state === 'pending') {
      throw new ApiError('invalid_parameter', `delivery ${id} is still pending; it is being delivered`, {
        param: 'delivery_id'
      })
    }
    const now = this.clock.now()
    d.state = 'pending'
    d.trigger = 'manual'
    d.roundStart = d.attempts
    d.nextAttemptAt = now
    d.lastError = ''
    this.track(d)
    await this.deliveriesOut.push(deliveryRow(d, this.versions.next(), now))
    this.schedule(d)
    return deliveryView(d)
  }

  /** The delivery log of `w` (stored attempts included: the writers are flushed first). */
  async deliveries(
    w: Webhook,
    q: { readonly limit: number; readonly cursor?: string; readonly state?: DeliveryState }
  ): Promise<DeliveryPage> {
    await Promise.all([this.deliveriesOut.flush(), this.attemptsOut.flush()])
    return listDeliveries(this.store, w.id, q)
  }

  stats(): OutboxStats {
    return {
      ...this.counters,
      pending: this.pending.size,
      in_flight: this.scheduler.running,
      writer_queued: this.deliveriesOut.queued + this.attemptsOut.queued
    }
  }

  /** Stops starting attempts, lets those in flight end (at most the timeout), then stores what is queued. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopped = true
    this.scheduler.stop()
    const wait = Math.max(0, Math.min(this.config.timeoutMs + 1_000, deadlineMs - Date.now()))
    await Promise.race([Promise.all(this.inFlight), new Promise((r) => setTimeout(r, wait).unref())])
    const left = Math.max(1_000, deadlineMs - Date.now())
    await Promise.all([this.deliveriesOut.close(left), this.attemptsOut.close(left)])
    await this.transport.close()
  }

  // --- attempts --------------------------------------------------------------------------------------

  private attempt(d: Delivery): void {
    const w = this.registry.get(d.webhookId)
    if (!w || w.state !== 'active') {
      // the last guard: nothing is sent to a webhook that is not active
      this.scheduler.done(d)
      this.finish(d, 'failed', w ? `webhook_${w.state}: ${w.stateReason}` : 'webhook_removed')
      return
    }
    const started = this.clock.now()
    d.sending = true
    const p = this.send(d, w).then(
      (res) => this.settle(d, res, started),
      (err: unknown) => this.settle(d, failure(err), started)
    )
    this.inFlight.add(p)
    void p.finally(() => this.inFlight.delete(p))
  }

  private send(d: Delivery, w: Webhook): Promise<DeliveryResult> {
    d.attempts++
    this.counters.attempts++
    const body = payloadBytes(d)
    const headers = signedHeaders(w.signingKey, d.event, d.id, this.clock.now(), body)
    return this.transport.send({ url: w.url, headers, body, timeoutMs: this.config.timeoutMs })
  }

  private settle(d: Delivery, res: DeliveryResult, started: number): void {
    const now = this.clock.now()
    const inRound = d.attempts - d.roundStart
    const outcome = outcomeOf(res.status, inRound)
    let next: number | null = null
    if (outcome === 'retry' && d.state === 'pending') {
      const scheduled = retryDelayMs(inRound, this.random)
      const delay =
        res.status === 429
          ? retryAfterDelayMs(res.retryAfter, scheduled, this.config.retryAfterMaxS * 1000, now)
          : scheduled
      next = now + delay
    }
    d.sending = false
    if (d.cancelReason !== null && outcome !== 'delivered') next = null
    this.record(d, res, started, next)
    this.scheduler.done(d)
    this.failingClock(d.webhookId, outcome === 'delivered', now)
    if (outcome === 'delivered') this.finish(d, 'delivered', '')
    else if (d.cancelReason !== null) this.finish(d, 'failed', d.cancelReason)
    else if (outcome === 'gone') {
      this.finish(d, 'failed', 'receiver answered 410 Gone')
      const w = this.registry.get(d.webhookId)
      if (w?.state === 'active') this.disable(w, `receiver answered 410 Gone (delivery ${d.id})`)
    } else if (next === null) this.finish(d, 'failed', res.error ?? `receiver answered ${res.status}`)
    else {
      this.counters.retries++
      d.nextAttemptAt = next
      void this.deliveriesOut.push(deliveryRow(d, this.versions.next(), now))
      this.scheduler.add(d, next)
    }
    if (this.deliveriesOut.full || this.attemptsOut.full) this.backpressure()
  }

  /** Appends the attempt and sets the delivery's last answer. */
  private record(d: Delivery, res: DeliveryResult, started: number, next: number | null): void {
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
    void this.attemptsOut.push(row)
  }

  /** The webhook's failing clock: a success stops it; failures for WEBHOOK_DISABLE_AFTER_S disable it. */
  private failingClock(webhookId: number, ok: boolean, now: number): void {
    const w = this.registry.get(webhookId)
    if (!w) return
    if (ok) {
      if (w.failingSince !== null) void this.registry.setFailingSince(w.id, null).catch((err) => this.storeError(err))
      return
    }
    if (w.failingSince === null) {
      void this.registry.setFailingSince(w.id, now).catch((err) => this.storeError(err))
      return
    }
    const limitMs = this.config.disableAfterS * 1000
    if (w.state === 'active' && now - w.failingSince >= limitMs) {
      this.disable(
        w,
        `every delivery failed since ${new Date(w.failingSince).toISOString()} (WEBHOOK_DISABLE_AFTER_S=${this.config.disableAfterS})`
      )
    }
  }

  private disable(w: Webhook, reason: string): void {
    this.counters.webhooks_disabled++
    this.log.warn({ webhook_id: w.id, reason }, 'webhook disabled')
    void this.registry.setState(w, 'disabled', reason, false).catch((err) => this.storeError(err))
  }

  /**
   * A webhook left `active`: its waiting deliveries fail now. One on the wire ends with its answer (no
   * retry follows); one still being stored fails once stored.
   */
  private endWaiting(w: Webhook): void {
    const reason = `webhook_${w.state}${w.stateReason ? `: ${w.stateReason}` : ''}`
    for (const d of [...this.pending.values()]) {
      if (d.webhookId !== w.id) continue
      if (this.scheduler.remove(d)) this.finish(d, 'failed', reason)
      else d.cancelReason = reason
    }
  }

  /** A stored delivery starts waiting, unless its webhook left `active` while it was being stored. */
  private schedule(d: Delivery): void {
    if (d.state !== 'pending' || !this.pending.has(d.id)) return
    if (d.cancelReason !== null) {
      this.finish(d, 'failed', d.cancelReason)
      return
    }
    this.scheduler.add(d, d.nextAttemptAt ?? this.clock.now())
  }

  // --- bookkeeping -----------------------------------------------------------------------------------

  private track(d: Delivery): void {
    this.pending.set(d.id, d)
    this.pendingPerWebhook.set(d.webhookId, (this.pendingPerWebhook.get(d.webhookId) ?? 0) + 1)
  }

  private untrack(d: Delivery): void {
    if (!this.pending.delete(d.id)) return
    const n = (this.pendingPerWebhook.get(d.webhookId) ?? 1) - 1
    if (n <= 0) this.pendingPerWebhook.delete(d.webhookId)
    else this.pendingPerWebhook.set(d.webhookId, n)
  }

  /** A delivery that never waited (queue full): stored as failed at once. */
  private fail(d: Delivery, reason: string): void {
    this.counters.dropped_queue_full++
    this.log.warn({ webhook_id: d.webhookId, delivery_id: d.id, reason }, 'webhook delivery not queued')
    d.state = 'failed'
    d.nextAttemptAt = null
    d.lastError = reason
    this.counters.failed++
    void this.deliveriesOut.push(deliveryRow(d, this.versions.next(), this.clock.now()))
  }

  /**
   * Ends a delivery. `delivered` writes no row of its own: the 2xx attempt just appended to the log marks
   * it (outbox-queries.ts folds the log into the state), which keeps the hot path at one delivery row and
   * one attempt row per delivery.
   */
  private finish(d: Delivery, state: 'delivered' | 'failed', reason: string): void {
    d.state = state
    d.nextAttemptAt = null
    if (reason !== '') d.lastError = reason
    this.counters[state]++
    this.untrack(d)
    if (state === 'failed') void this.deliveriesOut.push(deliveryRow(d, this.versions.next(), this.clock.now()))
  }

  private originOf(url: string): string {
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

  /** The writers fell behind: hold new attempts until they drain. */
  private backpressure(): void {
    if (this.scheduler.paused) return
    this.scheduler.paused = true
    void Promise.all([this.deliveriesOut.flush(), this.attemptsOut.flush()]).finally(() => this.scheduler.resume())
  }

  private storeError(err: unknown): void {
    this.counters.store_errors++
    this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhook state not stored')
  }
}

/** The writer interface the outbox uses (RowWriter; tests may pass their own). */
export interface RowWriterLike {
  readonly queued: number
  readonly full: boolean
  push(row: object): Promise<void>
  flush(): Promise<void>
  close(ms: number): Promise<void>
}

function failure(err: unknown): DeliveryResult {
  return {
    status: null,
    error: err instanceof Error ? err.message : String(err),
    durationMs: 0,
    excerpt: '',
    retryAfter: null
  }
}

function notActive(w: Webhook): ApiError {
  return new ApiError(
    'invalid_parameter',
    `webhook ${w.id} is ${w.state}${w.stateReason ? ` (${w.stateReason})` : ''}: nothing is sent to it; enable it first (POST /v1/webhooks/${w.id}/enable)`,
    { param: 'webhook_id' }
  )
}
