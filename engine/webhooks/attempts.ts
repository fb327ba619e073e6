/**
 * @module
 * Attempts of the outbox: the scheduler starts one per due delivery (scheduler.ts limits), it is signed and
 * sent, and its answer decides what follows (retry-schedule.ts): delivered, a retry at about +1 s, +4 s,
 * +16 s (a 429's Retry-After within its bound), or failed; a 410 also disables the webhook, and a webhook
 * whose deliveries all failed for WEBHOOK_DISABLE_AFTER_S is disabled.
 *
 * Nothing is sent to a webhook that is not active: each attempt checks the state just before sending, and
 * a webhook leaving `active` ends its waiting deliveries (`endWaiting`); one on the wire ends with its
 * answer, without a retry.
 */
import type { WebhookConfig } from './config.js'
import type { Logger } from '../log.js'
import type { Delivery } from './delivery.js'
import type { DeliveryLedger } from './outbox-ledger.js'
import { payloadBytes } from './payload.js'
import type { WebhookRegistry } from './registry.js'
import { outcomeOf, retryAfterDelayMs, retryDelayMs } from './retry-schedule.js'
import { Scheduler, type Clock } from './scheduler.js'
import { signedHeaders } from './signing.js'
import type { DeliveryResult, WebhookTransport } from './transport.js'
import type { Webhook } from './webhook.js'

export class AttemptRunner {
  readonly scheduler: Scheduler<Delivery>

  constructor(
    private readonly ledger: DeliveryLedger,
    private readonly registry: WebhookRegistry,
    readonly transport: WebhookTransport,
    private readonly config: WebhookConfig,
    private readonly clock: Clock,
    private readonly random: () => number,
    private readonly log: Logger
  ) {
    this.scheduler = new Scheduler<Delivery>(clock, config.concurrency, config.receiverConcurrency, (d) =>
      this.attempt(d)
    )
  }

  /** A journaled delivery starts waiting, unless it ended meanwhile or its webhook left `active`. */
  schedule(d: Delivery): void {
    if (d.state !== 'pending' || !this.ledger.pending.has(d.id)) return
    if (d.cancelReason !== null) {
      this.ledger.finish(d, 'failed', d.cancelReason)
      return
    }
    this.scheduler.add(d, d.nextAttemptAt ?? this.clock.now())
  }

  /** Signs and sends one attempt of `d` to `w` (counted; the caller records the result). */
  send(d: Delivery, w: Webhook): Promise<DeliveryResult> {
    d.attempts++
    this.ledger.counters.attempts++
    const body = payloadBytes(d)
    const headers = signedHeaders(w.signingKey, d.event, d.id, this.clock.now(), body)
    return this.transport.send({ url: w.url, headers, body, timeoutMs: this.config.timeoutMs })
  }

  /**
   * A webhook left `active`: its waiting deliveries fail now. One on the wire ends with its answer (no
   * retry follows); one still being journaled fails once journaled.
   */
  endWaiting(w: Webhook): void {
    const reason = `webhook_${w.state}${w.stateReason ? `: ${w.stateReason}` : ''}`
    for (const d of [...this.ledger.pending.values()]) {
      if (d.webhookId !== w.id) continue
      if (this.scheduler.remove(d)) this.ledger.finish(d, 'failed', reason)
      else d.cancelReason = reason
    }
  }

  private attempt(d: Delivery): void {
    const w = this.registry.get(d.webhookId)
    if (!w || w.state !== 'active') {
      // the last guard: nothing is sent to a webhook that is not active
      this.scheduler.done(d)
      this.ledger.finish(d, 'failed', w ? `webhook_${w.state}: ${w.stateReason}` : 'webhook_removed')
      return
    }
    const started = this.clock.now()
    d.sending = true
    void this.send(d, w).then(
      (res) => this.settle(d, res, started),
      (err: unknown) => this.settle(d, failure(err), started)
    )
  }

  private settle(d: Delivery, res: DeliveryResult, started: number): void {
    const now = this.clock.now()
    const inRound = d.attempts - d.roundStart
    const outcome = outcomeOf(res.status, inRound)
    let next: number | null = null
    if (outcome === 'retry' && d.state === 'pending') {
      const scheduled = retryDelayMs(inRound, this.random, this.config.retryDelaysMs)
      const delay =
        res.status === 429
          ? retryAfterDelayMs(res.retryAfter, scheduled, this.config.retryAfterMaxS * 1000, now)
          : scheduled
      next = now + delay
    }
    d.sending = false
    if (d.cancelReason !== null && outcome !== 'delivered') next = null
    this.ledger.record(d, res, started, next)
    this.scheduler.done(d)
    this.failingClock(d.webhookId, outcome === 'delivered', now)
    if (outcome === 'delivered') this.ledger.finish(d, 'delivered', '')
    else if (d.cancelReason !== null) this.ledger.finish(d, 'failed', d.cancelReason)
    else if (outcome === 'gone') {
      this.ledger.finish(d, 'failed', 'receiver answered 410 Gone')
      const w = this.registry.get(d.webhookId)
      if (w?.state === 'active') this.disable(w, `receiver answered 410 Gone (delivery ${d.id})`)
    } else if (next === null) this.ledger.finish(d, 'failed', res.error ?? `receiver answered ${res.status}`)
    else {
      this.ledger.counters.retries++
      d.nextAttemptAt = next
      void this.ledger.writeState(d)
      this.scheduler.add(d, next)
    }
    if (this.ledger.full) this.backpressure()
  }

  /** The webhook's failing clock: a success stops it; failures for WEBHOOK_DISABLE_AFTER_S disable it. */
  private failingClock(webhookId: number, ok: boolean, now: number): void {
    const w = this.registry.get(webhookId)
    if (!w) return
    if (ok) {
      if (w.failingSince !== null)
        void this.registry.setFailingSince(w.id, null).catch((err) => this.ledger.storeError(err))
      return
    }
    if (w.failingSince === null) {
      void this.registry.setFailingSince(w.id, now).catch((err) => this.ledger.storeError(err))
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
    this.ledger.counters.webhooks_disabled++
    this.log.warn({ webhook_id: w.id, reason }, 'webhook disabled')
    void this.registry.setState(w, 'disabled', reason, false).catch((err) => this.ledger.storeError(err))
  }

  /** The journals fell behind the store: hold new attempts until they drain. */
  private backpressure(): void {
    if (this.scheduler.paused) return
    this.scheduler.paused = true
    void this.ledger.flush().finally(() => this.scheduler.resume())
  }
}

/** A transport that threw (it should not): the attempt failed with that error. */
export function failure(err: unknown): DeliveryResult {
  return {
    status: null,
    error: err instanceof Error ? err.message : String(err),
    durationMs: 0,
    excerpt: '',
    retryAfter: null
  }
}
