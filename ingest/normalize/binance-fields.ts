/**
 * @module
 * The Binance USD-M message shapes the normalizer reads (ingest/normalize/binance.ts) and how their fields
 * are taken: numbers sent as strings, optional fields where 0 means "no value", and the trade_id of an
 * aggregate trade that came without its aggregate id.
 */

/** `aggTrade` event (socket) or REST aggTrades row (without `e`, `E`, `s`). */
export interface AggTrade {
  e?: unknown
  s?: unknown
  a?: unknown
  /** first trade id of the aggregate */
  f?: unknown
  p?: unknown
  q?: unknown
  T?: unknown
  m?: unknown
}

/** `markPriceUpdate` event: one market's mark, index, funding rate and next funding time. */
export interface MarkPriceUpdate {
  E?: unknown
  s?: unknown
  p?: unknown
  i?: unknown
  r?: unknown
  T?: unknown
}

/** `forceOrder` event: one liquidation order's latest snapshot. */
export interface ForceOrder {
  o?: { s?: unknown; S?: unknown; p?: unknown; ap?: unknown; q?: unknown; z?: unknown; T?: unknown }
}

/** A field without a value: missing, null or "". */
export const absent = (v: unknown): boolean => v === undefined || v === null || v === ''

/** A number Binance sends as a string (a number is taken too); NaN when absent or not a number. */
export const num = (v: unknown): number =>
  typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : Number.NaN

/**
 * A field the record can do without (mark, index, next funding time, account shares): its value; null when
 * absent or 0 (Binance's "no value"); undefined when present but not a number ≥ 0 (the message is malformed).
 */
export function optional(v: unknown): number | null | undefined {
  if (absent(v)) return null
  const n = num(v)
  if (!(n >= 0)) return undefined
  return n === 0 ? null : n
}

/**
 * trade_id of an aggregate trade that came without its aggregate id `a`: `f<first trade id>` when `f` is
 * there (every trade belongs to one aggregate, so its first trade id names the aggregate), else
 * `t<T>-<p>-<q>-<b|s>` from the fields as sent (taker side b/s). The letter keeps them apart from aggregate
 * ids (digits only); the same message always gives the same id. Without `f`, two aggregates of one
 * millisecond with the same price, size and taker side get the same id (and the second is taken for a
 * repeat of the first).
 */
export function unsequencedId(d: AggTrade, ts: number, buyerIsMaker: boolean): string {
  if (typeof d.f === 'number' && Number.isSafeInteger(d.f) && d.f >= 0) return `f${d.f}`
  return fieldsId(d, ts, buyerIsMaker)
}

/** trade_id from an aggregate trade's fields as sent: `t<T>-<p>-<q>-<b|s>` (see unsequencedId). */
export const fieldsId = (d: AggTrade, ts: number, buyerIsMaker: boolean): string =>
  `t${ts}-${String(d.p)}-${String(d.q)}-${buyerIsMaker ? 's' : 'b'}`
