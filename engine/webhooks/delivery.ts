/**
 * @module
 * One delivery: one event to one webhook, with its state (docs/webhooks.md, "Delivery states"):
 *
 *   pending ──2xx──▶ delivered
 *   pending ──no 2xx, retries left──▶ pending (retry waiting: about 1 s, 4 s, 16 s)
 *   pending ──no 2xx after the 3rd retry | 410 | webhook disabled or removed | queue full──▶ failed
 *   delivered | failed ──redeliver──▶ pending (a new round of 4 attempts)
 *
 * Its id (`msg_` + 32 hex) is the `webhook-id` header: derived from the event id and webhook id, so it is
 * the same in every attempt, after a restart, and in a redelivery; receivers dedupe on it.
 */
import crypto from 'node:crypto'
import { symbolOfPayload, type WebhookEvent } from './event.js'
import type { Schedulable } from './scheduler.js'

export type DeliveryState = 'pending' | 'delivered' | 'failed'
/** what started the current round: the event, a redelivery, or the test operation */
export type Trigger = 'event' | 'manual' | 'test'

/**
 * The in-memory record. Mutable on purpose: the outbox owns it and changes it in place per attempt (100,000
 * pending deliveries stay one small object each); every change is written as a new row version.
 */
export interface Delivery extends Schedulable {
  readonly id: string
  readonly webhookId: number
  readonly keyId: string
  readonly eventId: string
  /** the event type (a catalog name, or TEST) */
  readonly event: string
  /** epoch ms of the event */
  readonly eventTs: number
  /** the payload's symbol, '' when it has none (the delivery log shows it) */
  readonly symbol: string
  /**
   * the event's payload (shared by the deliveries of one event), fields in body order; each row version
   * stores it as `JSON.stringify` text, made when the row is written (a pending delivery keeps no text)
   */
  readonly payload: Readonly<Record<string, unknown>>
  readonly createdAt: number
  trigger: Trigger
  state: DeliveryState
  /** attempts made, all rounds */
  attempts: number
  /** `attempts` when the current round started (a redelivery starts a round) */
  roundStart: number
  /** epoch ms of the next attempt while pending, else null */
  nextAttemptAt: number | null
  /** status of the last answer; 0 when there was none */
  lastStatus: number
  /** error of the last attempt or why the delivery failed without one; '' after an answer */
  lastError: string
  /** an attempt is on the wire */
  sending: boolean
  /** set when its webhook left `active` while it was being sent or stored: it ends failed with this reason */
  cancelReason: string | null
}

export function deliveryId(eventId: string, webhookId: number): string {
  const text = `${eventId}\n${webhookId}`
  // crypto.hash (Node >= 20.12): the one-shot form, a few times cheaper than a Hash object per delivery
  const hex = crypto.hash ? crypto.hash('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex')
  return 'msg_' + hex.slice(0, 32)
}

/** An event ready for delivery: its symbol worked out once for all its deliveries. */
export interface DeliveredEvent extends WebhookEvent {
  readonly symbol: string
}

export function deliveredEvent(e: WebhookEvent): DeliveredEvent {
  return {
    id: e.id,
    type: e.type,
    ts: e.ts,
    payload: e.payload,
    key_id: e.key_id,
    symbol: symbolOfPayload(e.payload)
  }
}

export function newDelivery(
  e: DeliveredEvent,
  webhook: { readonly id: number; readonly keyId: string },
  origin: string,
  now: number,
  trigger: Trigger = 'event'
): Delivery {
  return {
    id: deliveryId(e.id, webhook.id),
    webhookId: webhook.id,
    keyId: webhook.keyId,
    eventId: e.id,
    event: e.type,
    eventTs: e.ts,
    symbol: e.symbol,
    payload: e.payload,
    createdAt: now,
    trigger,
    state: 'pending',
    attempts: 0,
    roundStart: 0,
    nextAttemptAt: now,
    lastStatus: 0,
    lastError: '',
    sending: false,
    cancelReason: null,
    origin,
    dueAt: now,
    heapIndex: -1,
    ready: false
  }
}

/** The `webhook_deliveries` row of the delivery as it is now. */
export function deliveryRow(d: Delivery, version: number, now: number): Record<string, unknown> {
  return {
    delivery_id: d.id,
    webhook_id: d.webhookId,
    key_id: d.keyId,
    event_id: d.eventId,
    event: d.event,
    event_ts: d.eventTs,
    symbol: d.symbol,
    payload: JSON.stringify(d.payload),
    trigger: d.trigger,
    state: d.state,
    attempts: d.attempts,
    round_start: d.roundStart,
    next_attempt_at: d.state === 'pending' ? d.nextAttemptAt : null,
    last_status: d.lastStatus,
    last_error: d.lastError,
    created_at: d.createdAt,
    updated_at: now,
    version
  }
}

export const DELIVERY_COLUMNS: readonly string[] = Object.keys(
  deliveryRow(newDelivery(deliveredEvent({ id: '', type: '', ts: 0, payload: {} }), { id: 0, keyId: '' }, '', 0), 0, 0)
)

/** One attempt, as the append-only `webhook_attempts` log stores it. */
export interface AttemptRow {
  readonly delivery_id: string
  readonly webhook_id: number
  readonly event_id: string
  readonly event: string
  readonly attempt: number
  readonly trigger: Trigger
  /** epoch ms the attempt started */
  readonly at: number
  readonly duration_ms: number
  /** 0: no answer */
  readonly status_code: number
  readonly error: string
  readonly response_excerpt: string
  /** epoch ms of the retry this attempt scheduled, or null */
  readonly next_retry_at: number | null
}

export const ATTEMPT_COLUMNS: readonly string[] = [
  'delivery_id',
  'webhook_id',
  'event_id',
  'event',
  'attempt',
  'trigger',
  'at',
  'duration_ms',
  'status_code',
  'error',
  'response_excerpt',
  'next_retry_at'
]
