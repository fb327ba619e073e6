/**
 * @module
 * The delivery body: `event` (the type), `ts` (ISO 8601 UTC), the payload's fields in order, `webhook_id`
 * (catalog/webhook-events.ts `deliveryBodySchema`). The bytes are a pure function of the stored delivery, so
 * every attempt of a delivery, before and after a restart, sends the same body (and the same
 * X-Service-Signature).
 */
import type { Delivery } from './delivery.js'

export function payloadBytes(d: Pick<Delivery, 'event' | 'eventTs' | 'payload' | 'webhookId'>): Buffer {
  return Buffer.from(
    JSON.stringify({ event: d.event, ts: new Date(d.eventTs).toISOString(), ...d.payload, webhook_id: d.webhookId }),
    'utf8'
  )
}
