/**
 * @module
 * What the outbox delivers: an event of a catalog type (catalog/webhook-events.ts) with its payload, opaque
 * to delivery, signing and storage. Signal events from the signal bus are mapped onto the catalog's signal
 * entries here; other emitters build a `WebhookEvent` themselves.
 */
import type { SignalPayload } from '../../catalog/webhook-events.js'
import type { SignalEvent } from '../signals/signal-event.js'

export interface WebhookEvent {
  /** stable id of the event: with the webhook id it fixes the delivery id (`webhook-id`) */
  readonly id: string
  /** a catalog event type name (or TEST for the test delivery) */
  readonly type: string
  /** when it fired, epoch ms (the body renders it as ISO 8601 UTC) */
  readonly ts: number
  /** the catalog entry's payload, its fields in schema order (the body keeps that order) */
  readonly payload: Readonly<Record<string, unknown>>
  /** set when the event belongs to one API key: only that key's webhooks receive it */
  readonly key_id?: string
}

/** An event as the outbox takes it: a catalog event, or a signal event from the bus. */
export type OutboxEvent = WebhookEvent | SignalEvent

/** The payload's `symbol` when it is a string, else '' (matched by `*` registrations only). */
export function symbolOfPayload(payload: Readonly<Record<string, unknown>>): string {
  const s = payload['symbol']
  return typeof s === 'string' ? s : ''
}

export function signalPayload(
  e: Pick<SignalEvent, 'symbol' | 'direction' | 'confidence' | 'composite'>
): SignalPayload {
  return { symbol: e.symbol, direction: e.direction, confidence: e.confidence, composite: e.composite }
}

/** A signal event as a catalog event (its name is the type: HIGH, MEDIUM, VETO or SIGNAL). */
export function webhookEventOf(e: OutboxEvent): WebhookEvent {
  if ('payload' in e) return e
  return {
    id: e.id,
    type: e.event,
    ts: e.ts,
    payload: signalPayload(e),
    key_id: e.key_id
  }
}
