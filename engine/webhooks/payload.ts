/**
 * @module
 * The delivery payload (spec "Webhook delivery payload"): event, ts (ISO 8601 UTC), symbol, direction,
 * confidence, composite, webhook_id, in that order. The bytes are a pure function of the stored delivery,
 * so every attempt of a delivery, before and after a restart, sends the same body (and the same
 * X-Service-Signature).
 */

export interface PayloadFields {
  readonly event: string
  /** epoch ms of the event */
  readonly eventTs: number
  readonly symbol: string
  readonly direction: string
  readonly confidence: string
  readonly composite: number
  readonly webhookId: number
}

/**
 * The ISO text of the last event time written, and that time (epoch ms): the deliveries of one event, and
 * events of the same millisecond, share it (a Date and its toISOString per attempt otherwise). NaN at
 * first, which equals nothing, so the first call formats (and an invalid time throws as before).
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

/**
 * Payload bytes are carved from SLAB_BYTES slabs rather than Node's shared 8 KiB Buffer pool, which a
 * process allocating a payload per attempt renews every ~50 attempts (a new ArrayBuffer each time). A slab
 * stays alive while a payload cut from it does (until its attempt is written); larger payloads get their
 * own buffer.
 */
const SLAB_BYTES = 64 * 1024
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
let slabAt = 0

/** The UTF-8 bytes of `text`, from the slab when they fit in an eighth of it. */
function slabBytes(text: string): Buffer {
  const most = text.length * 3 // UTF-8 bytes per UTF-16 unit, at most
  if (most > SLAB_BYTES / 8) return Buffer.from(text, 'utf8')
  if (slabAt + most > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES)
    slabAt = 0
  }
  const n = slab.write(text, slabAt, 'utf8')
  const bytes = slab.subarray(slabAt, slabAt + n)
  slabAt += n
  return bytes
}

export function payloadBytes(p: PayloadFields): Buffer {
  // the bytes of JSON.stringify({event, ts, symbol, direction, confidence, composite, webhook_id}), written
  // without the intermediate object (one per attempt); test/unit/webhook-signing.test.ts checks they match
  const s = JSON.stringify
  return slabBytes(
    `{"event":${s(p.event)},"ts":"${isoOf(p.eventTs)}","symbol":${s(p.symbol)},"direction":${s(p.direction)},"confidence":${s(p.confidence)},"composite":${s(p.composite)},"webhook_id":${s(p.webhookId)}}`
  )
}
