/**
 * @module
 * The SQL of signal events (table `signal_events`, schemas/008_signals.sql): the insert payload, the read
 * that rebuilds the engine's state at start, and the paged listing of GET /v1/signals. Every value a client
 * sends travels as a bound parameter; the WHERE clause is assembled from fixed fragments.
 */
import { createHash } from 'node:crypto'
import type { InsertBatch, Params, Store } from '../store/store.js'
import { escapeTsv } from '../runtime/tsv-row.js'
import type { RestoredRow } from './signal-engine.js'
import type { SignalEvent, SignalEventName } from './signal-event.js'

export const SIGNAL_TABLE = 'signal_events'
const COLUMNS = ['id', 'event', 'ts', 'symbol', 'direction', 'confidence', 'composite', 'action', 'source', 'key_id']

/** Epoch ms as DateTime64(3) text, `seconds.millis` (a bare integer's meaning depends on its digit count). */
function dateTime64(ms: number): string {
  const s = Math.floor(ms / 1000)
  return `${s}.${String(ms - s * 1000).padStart(3, '0')}`
}

function tsvRow(e: SignalEvent): string {
  const cells = [
    escapeTsv(e.id),
    e.event,
    dateTime64(e.ts),
    escapeTsv(e.symbol),
    e.direction,
    escapeTsv(e.confidence),
    String(e.composite),
    escapeTsv(e.action),
    escapeTsv(e.source),
    escapeTsv(e.key_id ?? '')
  ]
  return cells.join('\t') + '\n'
}

/**
 * One insert of events. The dedup token is derived from their ids, so retrying the same batch after a
 * failure (the writer keeps it until it is stored) is a no-op if the first attempt did land.
 */
export function insertBatch(events: readonly SignalEvent[]): InsertBatch {
  const ids = events.map((e) => e.id).join('\n')
  return {
    table: SIGNAL_TABLE,
    columns: COLUMNS,
    format: 'TSV',
    data: Buffer.from(events.map(tsvRow).join('')),
    dedupToken:
      events.length === 1 ? `signal:${events[0]!.id}` : `signals:${createHash('sha256').update(ids).digest('hex')}`
  }
}

/** The latest engine event of each base, direction and kind, with the buckets it recorded. */
export function restoreRows(store: Store): Promise<RestoredRow[]> {
  return store.query<RestoredRow>(
    `SELECT symbol, direction, event, toUnixTimestamp64Milli(max(ts)) AS last_ms,
            argMax(confidence, ts) AS confidence, argMax(action, ts) AS action
     FROM ${SIGNAL_TABLE} WHERE source = 'engine'
     GROUP BY symbol, direction, event`
  )
}

/** An event as GET /v1/signals lists it: the event without its key (a key sees only its own anyway). */
export type ListedSignal = Omit<SignalEvent, 'key_id'>

/** Position after the last listed event: pages are newest first, ties by id descending. */
export interface SignalPosition {
  readonly ts: number
  readonly id: string
}

export interface SignalFilter {
  readonly symbol?: string
  readonly event?: SignalEventName
  readonly direction?: 'long' | 'short'
  /** events at or after this, epoch ms */
  readonly sinceMs?: number
  /** the caller's key: its own forwarded alerts are listed besides the events of every key */
  readonly keyId: string | null
  /** list events after this position (the previous page's last) */
  readonly after?: SignalPosition
  readonly limit: number
}

export interface SignalPage {
  readonly events: readonly ListedSignal[]
  /** where the next page starts; null on the last page */
  readonly next: SignalPosition | null
}

export async function listSignals(store: Store, f: SignalFilter): Promise<SignalPage> {
  const where = [`(key_id = '' OR key_id = {key_id:String})`]
  const params: Record<string, string | number> = { key_id: f.keyId ?? '', limit: f.limit + 1 }
  if (f.symbol !== undefined) {
    where.push('symbol = {symbol:String}')
    params['symbol'] = f.symbol
  }
  if (f.event !== undefined) {
    where.push('event = {event:String}')
    params['event'] = f.event
  }
  if (f.direction !== undefined) {
    where.push('direction = {direction:String}')
    params['direction'] = f.direction
  }
  if (f.sinceMs !== undefined) {
    where.push(`ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')`)
    params['since'] = f.sinceMs
  }
  if (f.after !== undefined) {
    where.push(
      `(ts < fromUnixTimestamp64Milli({after_ts:Int64}, 'UTC') OR (ts = fromUnixTimestamp64Milli({after_ts:Int64}, 'UTC') AND id < {after_id:String}))`
    )
    params['after_ts'] = f.after.ts
    params['after_id'] = f.after.id
  }
  // the time is aliased ts_ms: an alias named ts would shadow the column in WHERE.
  // LIMIT 1 BY id: a row stored twice (a retry outside the dedup window) is listed once.
  const rows = await store.query<Omit<ListedSignal, 'ts'> & { ts_ms: number }>(
    `SELECT id, event, toUnixTimestamp64Milli(ts) AS ts_ms, symbol, direction, confidence, composite, action, source
     FROM ${SIGNAL_TABLE} WHERE ${where.join(' AND ')}
     ORDER BY ts DESC, id DESC LIMIT 1 BY id LIMIT {limit:UInt32}`,
    params as Params
  )
  const events: ListedSignal[] = rows.slice(0, f.limit).map(({ ts_ms, ...r }) => ({
    id: r.id,
    event: r.event,
    ts: Number(ts_ms),
    symbol: r.symbol,
    direction: r.direction,
    confidence: r.confidence,
    composite: Number(r.composite),
    action: r.action,
    source: r.source
  }))
  const last = events[events.length - 1]
  return { events, next: rows.length > f.limit && last ? { ts: last.ts, id: last.id } : null }
}

/** The opaque `cursor` of a position: base64url of `ts:id`. */
export function encodeCursor(p: SignalPosition): string {
  return Buffer.from(`${p.ts}:${p.id}`).toString('base64url')
}

/** The position of a cursor, or null when it is not one this service made. */
export function decodeCursor(cursor: string): SignalPosition | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  const m = /^(\d{1,15}):(.{1,200})$/s.exec(text)
  if (!m) return null
  const ts = Number(m[1])
  return Number.isSafeInteger(ts) ? { ts, id: m[2]! } : null
}
