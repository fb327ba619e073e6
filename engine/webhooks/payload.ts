/**
 * @module
 * The delivery body: `event` (the type), `ts` (ISO 8601 UTC), the payload's fields in order, `webhook_id`
 * (catalog/webhook-events.ts `deliveryBodySchema`). The bytes are a pure function of the stored delivery, so
 * every attempt of a delivery, before and after a restart, sends the same body (and the same
 * X-Service-Signature).
 */
import type { Delivery } from './delivery.js'

/**
 * The event time last rendered (epoch ms) and its ISO text: the deliveries and retries of one event, and
 * events of the same millisecond, share it. NaN equals nothing, so an invalid time is always rendered (and
 * throws as `toISOString` does).
 */
let lastTs = NaN
let lastIso = ''

function isoOf(ms: number): string {
  if (ms !== lastTs) {
    lastIso = new Date(ms).toISOString()
    lastTs = ms
  }
  return lastIso
}

export function payloadBytes(d: Pick<Delivery, 'event' | 'eventTs' | 'payload' | 'webhookId'>): Buffer {
  return Buffer.from(
    JSON.stringify({ event: d.event, ts: isoOf(d.eventTs), ...d.payload, webhook_id: d.webhookId }),
    'utf8'
  )
}
