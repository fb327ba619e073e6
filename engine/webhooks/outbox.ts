/**
 * @module
 * The durable outbox of webhook deliveries (docs/webhooks.md, "Durability"). An event (a catalog type and
 * its payload, or a signal from the signal bus) becomes one delivery per matching webhook
 * (event-intake.ts), journaled (journal.ts: appended to a local file, loaded into `webhook_deliveries` in
 * bulk) before its first attempt. Attempts are journaled to `webhook_attempts`; a retry or a failure
 * journals the delivery row again with a higher version; a 2xx attempt in the log is what marks a delivery delivered (no row of its own). At start, segments a previous run left are loaded
 * first, then deliveries still `pending` are resumed at their next attempt time. A crash between an
 * attempt and the journal write of its result repeats that attempt after the restart: delivery is
 * at-least-once, and receivers dedupe on `webhook-id` (the delivery id, the same in every attempt).
 *
 * Every delivery ends `delivered` or `failed` (outbox-ledger.ts). Nothing is sent to a webhook that is not
 * active (attempts.ts).
 *
 * Bounded: at most `maxPending` deliveries wait (and `maxPendingPerWebhook` per webhook); more are journaled
 * as `failed` (`queue_full`, counted, redeliverable). When the store falls behind, attempts stop starting
 * until the journals drain; events arriving while the delivery journal is full are counted as dropped
 * (`dropped_unstored`) and logged, never silently.
 */
import type { Logger } from '../log.js'
import type { WebhookConfig } from './config.js'
import type { Store } from '../store/store.js'
import { ApiError } from '../errors.js'
import { AttemptRunner } from './attempts.js'
import { EventIntake } from './event-intake.js'
import { WEBHOOK_TEST_EVENT } from '../../catalog/webhook-events.js'
import { deliveredEvent, newDelivery, type DeliveryState } from './delivery.js'
import type { OutboxEvent } from './event.js'
import type { RowWriterLike } from './journal.js'
import { DeliveryLedger, type OutboxStats, type Writers } from './outbox-ledger.js'
import {
  deliveryView,
  findDelivery,
  listDeliveries,
  loadPending,
  type DeliveryPage,
  type DeliveryView
} from './outbox-queries.js'
import type { WebhookRegistry } from './registry.js'
import { systemClock, type Clock } from './scheduler.js'
import type { WebhookTransport } from './transport.js'
import type { VersionClock } from './version-clock.js'
import type { Webhook } from './webhook.js'

export type { OutboxStats, RowWriterLike }

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
  private readonly config: WebhookConfig
  private readonly log: Logger
  private readonly clock: Clock
  private readonly random: () => number
  private readonly ledger: DeliveryLedger
  private readonly runner: AttemptRunner
  /**
   * ids of this run's deliveries until `resume` ran: they are in memory (or ended), never resumed. Bounded
   * (STARTUP_IDS_MAX; past it resume relies on its flush alone).
   */
  private startupIds: Set<string> | null = new Set()
  private readonly intake: EventIntake

  constructor(o: OutboxOptions, writers: Writers) {
    this.store = o.store
    this.registry = o.registry
    this.config = o.config
    this.log = o.log
    this.clock = o.clock ?? systemClock
    this.random = o.random ?? Math.random
    this.ledger = new DeliveryLedger(writers, o.config, o.versions, this.clock, o.log)
    this.runner = new AttemptRunner(this.ledger, o.registry, o.transport, o.config, this.clock, this.random, o.log)
    this.registry.onLeaveActive = (w) => this.runner.endWaiting(w)
    this.intake = new EventIntake(this.ledger, o.registry, this.runner, this.clock, o.log, (id) => this.noteStartup(id))
  }

  /**
   * Loads the deliveries a previous run left pending and schedules them. Returns how many. Call it after
   * the journals' recovery (service.ts), so what the previous run journaled is in the store.
   */
  async resume(): Promise<number> {
    // this run's rows in the store first: a delivery it already delivered must not look pending
    await this.ledger.flush()
    const rows = await loadPending(this.store, (id) => {
      const w = this.registry.get(id)
      return w ? this.ledger.originOf(w.url) : ''
    })
    const now = this.clock.now()
    let resumed = 0
    for (const d of rows) {
      if (this.ledger.pending.has(d.id) || this.startupIds?.has(d.id)) continue
      resumed++
      const w = this.registry.get(d.webhookId)
      if (!w || w.state !== 'active') {
        this.ledger.finish(d, 'failed', w ? `webhook_${w.state}: ${w.stateReason}` : 'webhook_removed')
        continue
      }
      this.ledger.track(d)
      this.runner.scheduler.add(d, Math.max(now, d.nextAttemptAt ?? now))
    }
    this.startupIds = null
    return resumed
  }

  /**
   * The listener of emitters (the signal bus, catalog events): journals and schedules the deliveries of `e`
   * (errors are logged, never thrown).
   */
  readonly onEvent = (e: OutboxEvent): void => this.intake.onEvent(e)

  /** Journals the deliveries of `e` and schedules them; resolves with how many webhooks it matched once journaled. */
  accept(e: OutboxEvent): Promise<number> {
    return this.intake.accept(e)
  }

  /** Sends a signed test event now (outside the queue) and reports the receiver's answer. */
  async test(w: Webhook): Promise<TestResult> {
    if (w.state !== 'active') throw notActive(w)
    const now = this.clock.now()
    const e = deliveredEvent({
      id: `test_${now}_${Math.floor(this.random() * 1e9)}`,
      type: WEBHOOK_TEST_EVENT.name,
      ts: now,
      payload: { symbol: 'BTC', direction: 'long', confidence: 'TEST', composite: 0 }
    })
    const d = newDelivery(e, w, this.ledger.originOf(w.url), now, 'test')
    this.ledger.counters.deliveries++
    await this.ledger.writeState(d)
    const res = await this.runner.send(d, w)
    this.ledger.record(d, res, now, null)
    d.state = res.status !== null && res.status >= 200 && res.status < 300 ? 'delivered' : 'failed'
    d.nextAttemptAt = null
    this.ledger.counters[d.state === 'delivered' ? 'delivered' : 'failed']++
    // delivered: the 2xx in the attempt log says so (outbox-ledger.ts)
    if (d.state === 'failed') void this.ledger.writeState(d)
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
    if (this.ledger.pending.has(id)) throw stillPending(id)
    await this.ledger.flush() // its last rows may still be in the journal
    const d = await findDelivery(this.store, w.id, id, this.ledger.originOf(w.url))
    if (!d) throw new ApiError('not_found', `no delivery ${id} for webhook ${w.id}`)
    if (this.ledger.pending.has(id) || d.state === 'pending') throw stillPending(id)
    const now = this.clock.now()
    d.state = 'pending'
    d.trigger = 'manual'
    d.roundStart = d.attempts
    d.nextAttemptAt = now
    d.lastError = ''
    this.noteStartup(d.id)
    this.ledger.track(d)
    await this.ledger.writeState(d)
    this.runner.schedule(d)
    return deliveryView(d)
  }

  /** The delivery log of `w` (journaled rows included: the journals are loaded first). */
  async deliveries(
    w: Webhook,
    q: { readonly limit: number; readonly cursor?: string; readonly state?: DeliveryState }
  ): Promise<DeliveryPage> {
    await this.ledger.flush()
    return listDeliveries(this.store, w.id, q)
  }

  /** A journal write or load failed (counted in store_errors, logged). */
  storeError(err: unknown, what: string): void {
    this.ledger.storeError(err, what)
  }

  private noteStartup(id: string): void {
    if (this.startupIds === null) return
    if (this.startupIds.size >= STARTUP_IDS_MAX) this.startupIds = null
    else this.startupIds.add(id)
  }

  /** Resolves when every row journaled so far is in the store (what the reads above do first). */
  flush(): Promise<void> {
    return this.ledger.flush()
  }

  stats(): OutboxStats {
    return {
      ...this.ledger.counters,
      pending: this.ledger.pending.size,
      in_flight: this.runner.scheduler.running,
      writer_queued: this.ledger.queued
    }
  }

  /** Stops starting attempts, lets those in flight end (at most the timeout), then stores what is journaled. */
  async stop(deadlineMs: number): Promise<void> {
    this.intake.stopped = true
    this.runner.scheduler.stop()
    const wait = Math.max(0, Math.min(this.config.timeoutMs + 1_000, deadlineMs - Date.now()))
    await Promise.race([this.runner.scheduler.idle(), new Promise((r) => setTimeout(r, wait).unref())])
    const left = Math.max(1_000, deadlineMs - Date.now())
    const { deliveries, attempts } = this.ledger.writers
    await Promise.all([deliveries.close(left), attempts.close(left)])
    await this.runner.transport.close()
  }
}

/** Deliveries of this run remembered before `resume` ran, at most. */
const STARTUP_IDS_MAX = 10_000

function stillPending(id: string): ApiError {
  return new ApiError('invalid_parameter', `delivery ${id} is still pending; it is being delivered`, {
    param: 'delivery_id'
  })
}

function notActive(w: Webhook): ApiError {
  return new ApiError(
    'invalid_parameter',
    `webhook ${w.id} is ${w.state}${w.stateReason ? ` (${w.stateReason})` : ''}: nothing is sent to it; enable it first (POST /v1/webhooks/${w.id}/enable)`,
    { param: 'webhook_id' }
  )
}
