/**
 * @module
 * The outbox's reads: deliveries still pending (at start, to resume them), one delivery (redelivery), and
 * the delivery log of a webhook with each delivery's attempts, newest first, paged by an opaque cursor.
 * `webhook_deliveries` is read with FINAL: each delivery's highest version, its current state.
 */
import { ApiError } from '../errors.js'
import type { Store } from '../store/store.js'
import type { Delivery, DeliveryState, Trigger } from './delivery.js'

interface DeliveryDbRow {
  delivery_id: string
  webhook_id: number
  key_id: string
  event_id: string
  event: string
  event_ms: number
  symbol: string
  direction: string
  confidence: string
  composite: number
  trigger: Trigger
  state: DeliveryState
  attempts: number
  round_start: number
  next_ms: number | null
  last_status: number
  last_error: string
  created_ms: number
}

const DELIVERY_SELECT = `SELECT delivery_id, webhook_id, key_id, event_id, event,
    toUnixTimestamp64Milli(event_ts) AS event_ms, symbol, direction, confidence, composite, trigger, state,
    attempts, round_start,
    if(isNull(next_attempt_at), NULL, toUnixTimestamp64Milli(assumeNotNull(next_attempt_at))) AS next_ms,
    last_status, last_error, toUnixTimestamp64Milli(created_at) AS created_ms
  FROM webhook_deliveries FINAL`

function toDelivery(r: DeliveryDbRow, origin: string): Delivery {
  return {
    id: r.delivery_id,
    webhookId: Number(r.webhook_id),
    keyId: r.key_id,
    eventId: r.event_id,
    event: r.event,
    eventTs: Number(r.event_ms),
    symbol: r.symbol,
    direction: r.direction,
    confidence: r.confidence,
    composite: r.composite,
    createdAt: Number(r.created_ms),
    trigger: r.trigger,
    state: r.state,
    attempts: r.attempts,
    roundStart: r.round_start,
    nextAttemptAt: r.next_ms === null ? null : Number(r.next_ms),
    lastStatus: r.last_status,
    lastError: r.last_error,
    sending: false,
    cancelReason: null,
    origin,
    dueAt: 0,
    heapIndex: -1,
    ready: false
  }
}

/** Every pending delivery (to resume after a start); `originOf` gives each its receiver. */
export async function loadPending(store: Store, originOf: (webhookId: number) => string): Promise<Delivery[]> {
  const rows = await store.query<DeliveryDbRow>(`${DELIVERY_SELECT} WHERE state = 'pending'`)
  return rows.map((r) => toDelivery(r, originOf(Number(r.webhook_id))))
}

export async function findDelivery(
  store: Store,
  webhookId: number,
  id: string,
  origin: string
): Promise<Delivery | null> {
  const rows = await store.query<DeliveryDbRow>(
    `${DELIVERY_SELECT} WHERE webhook_id = {webhook:UInt64} AND delivery_id = {id:String}`,
    { webhook: webhookId, id }
  )
  return rows[0] ? toDelivery(rows[0], origin) : null
}

export interface AttemptView {
  readonly attempt: number
  readonly trigger: Trigger
  readonly at: string
  readonly duration_ms: number
  /** null: no answer (see error) */
  readonly status_code: number | null
  readonly error: string | null
  readonly response_excerpt: string
  readonly next_retry_at: string | null
}

export interface DeliveryView {
  readonly delivery_id: string
  readonly event_id: string
  readonly event: string
  readonly symbol: string
  readonly state: DeliveryState
  readonly trigger: Trigger
  readonly created_at: string
  readonly attempts: number
  readonly next_retry_at: string | null
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly attempt_log: AttemptView[]
}

export function deliveryView(d: Delivery, log: AttemptView[] = []): DeliveryView {
  return {
    delivery_id: d.id,
    event_id: d.eventId,
    event: d.event,
    symbol: d.symbol,
    state: d.state,
    trigger: d.trigger,
    created_at: new Date(d.createdAt).toISOString(),
    attempts: d.attempts,
    next_retry_at: d.state === 'pending' && d.nextAttemptAt !== null ? new Date(d.nextAttemptAt).toISOString() : null,
    last_status_code: d.lastStatus === 0 ? null : d.lastStatus,
    last_error: d.lastError === '' ? null : d.lastError,
    attempt_log: log
  }
}

interface AttemptDbRow {
  delivery_id: string
  attempt: number
  trigger: Trigger
  at_ms: number
  duration_ms: number
  status_code: number
  error: string
  response_excerpt: string
  next_ms: number | null
}

/** The cursor of the page after `d`: its creation time and id, opaque to clients. */
function cursorOf(d: Delivery): string {
  return Buffer.from(`${d.createdAt}:${d.id}`).toString('base64url')
}

function readCursor(cursor: string): { ms: number; id: string } {
  const m = /^(\d{1,16}):(msg_[0-9a-f]{32})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (!m)
    throw new ApiError('invalid_parameter', 'cursor must be a next_cursor from an earlier page', { param: 'cursor' })
  return { ms: Number(m[1]), id: m[2]! }
}

export interface DeliveryPage {
  readonly deliveries: DeliveryView[]
  /** pass as `cursor` for the next page; null on the last page */
  readonly next_cursor: string | null
}

/** The delivery log of a webhook, newest first. */
export async function listDeliveries(
  store: Store,
  webhookId: number,
  q: { readonly limit: number; readonly cursor?: string; readonly state?: DeliveryState }
): Promise<DeliveryPage> {
  const after = q.cursor === undefined ? null : readCursor(q.cursor)
  const where = [
    'webhook_id = {webhook:UInt64}',
    ...(q.state === undefined ? [] : ['state = {state:String}']),
    ...(after === null
      ? []
      : ['(created_at, delivery_id) < (fromUnixTimestamp64Milli({after_ms:Int64}), {after_id:String})'])
  ]
  const rows = await store.query<DeliveryDbRow>(
    `${DELIVERY_SELECT} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, delivery_id DESC LIMIT {limit:UInt32}`,
    {
      webhook: webhookId,
      limit: q.limit + 1,
      ...(q.state === undefined ? {} : { state: q.state }),
      ...(after === null ? {} : { after_ms: after.ms, after_id: after.id })
    }
  )
  const page = rows.slice(0, q.limit).map((r) => toDelivery(r, ''))
  const attempts =
    page.length === 0
      ? []
      : await attemptsOf(
          store,
          webhookId,
          page.map((d) => d.id)
        )
  const byDelivery = new Map<string, AttemptView[]>()
  for (const a of attempts) {
    let list = byDelivery.get(a.delivery_id)
    if (!list) byDelivery.set(a.delivery_id, (list = []))
    list.push({
      attempt: a.attempt,
      trigger: a.trigger,
      at: new Date(Number(a.at_ms)).toISOString(),
      duration_ms: a.duration_ms,
      status_code: a.status_code === 0 ? null : a.status_code,
      error: a.error === '' ? null : a.error,
      response_excerpt: a.response_excerpt,
      next_retry_at: a.next_ms === null ? null : new Date(Number(a.next_ms)).toISOString()
    })
  }
  return {
    deliveries: page.map((d) => deliveryView(d, byDelivery.get(d.id) ?? [])),
    next_cursor: rows.length > q.limit ? cursorOf(page[page.length - 1]!) : null
  }
}

async function attemptsOf(store: Store, webhookId: number, ids: readonly string[]): Promise<AttemptDbRow[]> {
  return store.query<AttemptDbRow>(
    `SELECT delivery_id, attempt, trigger, toUnixTimestamp64Milli(at) AS at_ms, duration_ms, status_code, error,
            response_excerpt,
            if(isNull(next_retry_at), NULL, toUnixTimestamp64Milli(assumeNotNull(next_retry_at))) AS next_ms
     FROM webhook_attempts
     WHERE webhook_id = {webhook:UInt64} AND delivery_id IN {ids:Array(String)}
     ORDER BY delivery_id, attempt, at`,
    { webhook: webhookId, ids }
  )
}
