/**
 * @module
 * The outbox's reads: deliveries still pending (at start, to resume them), one delivery (redelivery), and
 * the delivery log of a webhook with each delivery's attempts, newest first, paged by an opaque cursor.
 * A delivery's state is its highest row version (`webhook_deliveries` FINAL) folded with its attempt log:
 * a 2xx attempt numbered after the row's round start means delivered (the outbox writes no row for it),
 * and the log's last attempt number is the attempt count (a crash can lose the row written after an
 * attempt, never the order of the log).
 */
import { ApiError } from '../errors.js'
import type { Params, Store } from '../store/store.js'
import type { Delivery, DeliveryState, Trigger } from './delivery.js'

interface DeliveryDbRow {
  delivery_id: string
  webhook_id: number
  key_id: string
  event_id: string
  event: string
  event_ms: number
  symbol: string
  /** JSON text of the payload; '' on rows stored before the column existed (schemas/019_webhook_payload.sql) */
  payload?: string
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
    toUnixTimestamp64Milli(event_ts) AS event_ms, symbol, payload, direction, confidence, composite, trigger, state,
    attempts, round_start,
    if(isNull(next_attempt_at), NULL, toUnixTimestamp64Milli(assumeNotNull(next_attempt_at))) AS next_ms,
    last_status, last_error, toUnixTimestamp64Milli(created_at) AS created_ms
  FROM webhook_deliveries FINAL`

/**
 * The payload of a stored row. Rows stored before the payload column carry a signal event's fields in
 * their own columns (symbol, direction, confidence, composite): their payload is those fields, which gives
 * the same body bytes as when they were stored.
 */
function payloadOf(r: DeliveryDbRow): Record<string, unknown> {
  if (r.payload !== undefined && r.payload !== '') return JSON.parse(r.payload) as Record<string, unknown>
  return { symbol: r.symbol, direction: r.direction, confidence: r.confidence, composite: r.composite }
}

function toDelivery(r: DeliveryDbRow, origin: string): Delivery {
  return {
    id: r.delivery_id,
    webhookId: Number(r.webhook_id),
    keyId: r.key_id,
    eventId: r.event_id,
    event: r.event,
    eventTs: Number(r.event_ms),
    symbol: r.symbol,
    payload: payloadOf(r),
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

/** What the attempt log says of a delivery: its last attempt number, and its last 2xx attempt (0: none) and status. */
interface LogSummary {
  readonly last: number
  readonly ok: number
  readonly okStatus: number
}

/** Folds the attempt log into a delivery read from its row. */
function fold(d: Delivery, s: LogSummary | undefined): Delivery {
  if (!s) return d
  if (s.last > d.attempts) d.attempts = s.last
  if (d.state === 'pending' && s.ok > d.roundStart) {
    d.state = 'delivered'
    d.nextAttemptAt = null
    d.lastStatus = s.okStatus
    d.lastError = ''
  }
  return d
}

async function summaries(store: Store, idsSql: string, params: Params): Promise<Map<string, LogSummary>> {
  const rows = await store.query<{ delivery_id: string; last: number; ok: number; ok_status: number }>(
    `SELECT delivery_id, max(attempt) AS last, maxIf(attempt, status_code BETWEEN 200 AND 299) AS ok,
            argMaxIf(status_code, attempt, status_code BETWEEN 200 AND 299) AS ok_status
     FROM webhook_attempts WHERE delivery_id IN (${idsSql}) GROUP BY delivery_id`,
    params
  )
  return new Map(rows.map((r) => [r.delivery_id, { last: r.last, ok: r.ok, okStatus: r.ok_status }]))
}

/** Every pending delivery (to resume after a start); `originOf` gives each its receiver. */
export async function loadPending(store: Store, originOf: (webhookId: number) => string): Promise<Delivery[]> {
  const rows = await store.query<DeliveryDbRow>(`${DELIVERY_SELECT} WHERE state = 'pending'`)
  if (rows.length === 0) return []
  const logs = await summaries(store, `SELECT delivery_id FROM webhook_deliveries FINAL WHERE state = 'pending'`, {})
  return rows
    .map((r) => fold(toDelivery(r, originOf(Number(r.webhook_id))), logs.get(r.delivery_id)))
    .filter((d) => d.state === 'pending')
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
  if (!rows[0]) return null
  const logs = await summaries(store, '{id:String}', { id })
  return fold(toDelivery(rows[0], origin), logs.get(id))
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
  // a delivered delivery may still be a pending row (its 2xx is in the log): filtered after the fold, so a
  // page filtered by state can hold fewer than `limit` deliveries; next_cursor still pages on
  const stored = q.state === 'delivered' ? ['pending', 'delivered'] : q.state === undefined ? null : [q.state]
  const where = [
    'webhook_id = {webhook:UInt64}',
    ...(stored === null ? [] : ['state IN {states:Array(String)}']),
    ...(after === null
      ? []
      : ['(created_at, delivery_id) < (fromUnixTimestamp64Milli({after_ms:Int64}), {after_id:String})'])
  ]
  const rows = await store.query<DeliveryDbRow>(
    `${DELIVERY_SELECT} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, delivery_id DESC LIMIT {limit:UInt32}`,
    {
      webhook: webhookId,
      limit: q.limit + 1,
      ...(stored === null ? {} : { states: stored }),
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
  const views: DeliveryView[] = []
  for (const d of page) {
    const log = byDelivery.get(d.id) ?? []
    let last = 0
    let ok = 0
    let okStatus = 0
    for (const a of log) {
      last = Math.max(last, a.attempt)
      if (a.status_code !== null && a.status_code >= 200 && a.status_code < 300 && a.attempt > ok) {
        ok = a.attempt
        okStatus = a.status_code
      }
    }
    fold(d, { last, ok, okStatus })
    if (q.state === undefined || d.state === q.state) views.push(deliveryView(d, log))
  }
  return {
    deliveries: views,
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
