/**
 * @module
 * Reading an inbound alert's body (spec "Inbound alert body"): a JSON object whatever the Content-Type
 * (TradingView sends `text/plain` unless the message is valid JSON) with `secret`, `symbol`, `direction`
 * and optional `timeframe`, `strategy`, `price`, the sequence fields `alert_id`, `seq`, `time`
 * (engine/alerts/alert-sequence.ts), and the fields TradingView templates commonly add: `ticker` and
 * `exchange` (the symbol), `interval` (the timeframe), `action` (the direction), `message` (accepted, not
 * used). A template field stands in for its canonical field; both present and naming different things is a
 * 400 naming both. Reading happens in two steps so nothing about the fields is
 * said before the secret is checked: `parseAlertJson` (400 `invalid_body` for a body that is not a JSON
 * object) and, once the secret holds, `readAlertFields` (400 `invalid_parameter` naming the field).
 */
import { ApiError } from '../errors.js'
import { readBarTime, readSeq, type SeqValue } from './alert-sequence.js'

export const ALERT_FIELDS = [
  'secret',
  'symbol',
  'direction',
  'timeframe',
  'strategy',
  'price',
  'alert_id',
  'seq',
  'time',
  'ticker',
  'exchange',
  'interval',
  'action',
  'message'
] as const

/** Longest `strategy`, code points: a strategy's name as TradingView shows it fits. */
export const STRATEGY_MAX = 100
/** `timeframe`: TradingView's `{{interval}}` (1, 60, 240, 1D, 1W, 1M, 30S) or the usual 1m, 4h, 1d. */
const TIMEFRAME = /^[A-Za-z0-9]{1,16}$/
/** Longest symbol read (engine/symbols/resolve.ts reads at most 40 characters). */
const SYMBOL_MAX = 40
/** Longest `alert_id`, code points: an order id or a {{timenow}} fits. */
export const ALERT_ID_MAX = 100
/** Longest `message`, code points (accepted, not used). */
export const MESSAGE_MAX = 1_000
/** `exchange`: TradingView's {{exchange}} (BINANCE, BYBIT, OKX). */
const EXCHANGE = /^[A-Za-z0-9_.-]{1,32}$/

/** The alert as read, before the symbol is resolved. */
export interface AlertFields {
  /** as sent, trimmed (resolved to its base later) */
  readonly symbol: string
  readonly direction: 'long' | 'short'
  readonly timeframe: string | null
  readonly strategy: string | null
  /** the price the alert fired at, as sent; informational (the confirmation reads the live state) */
  readonly price: number | null
  /** the sender's id of the alert (an order id), as sent */
  readonly alertId: string | null
  /** the strategy's sequence value (docs/alerts.md "Sequence checks") */
  readonly seq: SeqValue | null
  /** the bar's open time, epoch ms ({{time}}) */
  readonly barTime: number | null
  /**
   * `ticker` (with `exchange:` when sent) when `symbol` was sent too: the service checks both name the same
   * base; null otherwise (a lone `ticker` is the symbol)
   */
  readonly tickerAlso: string | null
}

const bad = (field: string, message: string): ApiError =>
  new ApiError('invalid_parameter', `${field} ${message}`, { param: field })

/** The body as a JSON object, or 400 `invalid_body`. */
export function parseAlertJson(body: Buffer | null): Readonly<Record<string, unknown>> {
  const shape = `an alert is a JSON object: {"secret":"tw_alert_...","symbol":"BINANCE:BTCUSDT.P","direction":"long"} (optional timeframe, strategy, price)`
  if (!body || body.length === 0) throw new ApiError('invalid_body', `the body is empty; ${shape}`)
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    // a numeric placeholder left unquoted and empty, or NaN, makes the message invalid JSON
    throw new ApiError('invalid_body', `the body is not valid JSON (check the alert message's placeholders); ${shape}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('invalid_body', `the body must be a JSON object; ${shape}`)
  }
  return value as Readonly<Record<string, unknown>>
}

const optionalString = (o: Readonly<Record<string, unknown>>, field: string): string | null => {
  const v = o[field]
  if (v === undefined || v === null) return null
  if (typeof v !== 'string') throw bad(field, 'must be a string')
  return v.trim()
}

function direction(v: unknown, field: 'direction' | 'action'): 'long' | 'short' {
  if (typeof v === 'string') {
    const d = v.trim().toLowerCase()
    // buy/sell: TradingView's {{strategy.order.action}}
    if (d === 'long' || d === 'buy') return 'long'
    if (d === 'short' || d === 'sell') return 'short'
  }
  if (v === undefined || v === null)
    throw bad(field, 'is required: long or short (or action, {{strategy.order.action}})')
  throw bad(field, `must be long or short (buy and sell read as long and short); got ${show(v)}`)
}

function price(v: unknown): number | null {
  if (v === undefined || v === null) return null
  // a quoted placeholder ("{{close}}") sends the number as a string
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN
  if (!Number.isFinite(n) || n <= 0) throw bad('price', 'must be a positive number (or a string holding one)')
  return n
}

/**
 * The alert's fields, checked; 400 `invalid_parameter` naming the first field at fault. Unknown fields are
 * refused (a misspelt `timeframe` would otherwise vanish silently), like the API's unknown parameters.
 */
export function readAlertFields(o: Readonly<Record<string, unknown>>): AlertFields {
  for (const k of Object.keys(o)) {
    if (!(ALERT_FIELDS as readonly string[]).includes(k)) {
      throw bad(k, `is not an alert field; an alert takes ${ALERT_FIELDS.join(', ')}`)
    }
  }
  const exchange = optionalString(o, 'exchange')
  if (exchange !== null && !EXCHANGE.test(exchange)) {
    throw bad('exchange', 'must be 1 to 32 letters, digits, _, . or -, e.g. BINANCE ({{exchange}})')
  }
  const ticker = tickerOf(o, exchange)
  const symbol = o['symbol'] ?? ticker
  if (symbol === undefined || symbol === null)
    throw bad('symbol', 'is required, e.g. BTC, BTCUSDT or BINANCE:BTCUSDT.P (or ticker, {{ticker}})')
  if (typeof symbol !== 'string' || symbol.trim() === '' || symbol.trim().length > SYMBOL_MAX) {
    throw bad('symbol', `must be a string of 1 to ${SYMBOL_MAX} characters, e.g. BTC, BTCUSDT or BINANCE:BTCUSDT.P`)
  }
  const timeframe = agreed(o, 'timeframe', 'interval', optionalString(o, 'timeframe'), optionalString(o, 'interval'))
  if (timeframe !== null && !TIMEFRAME.test(timeframe)) {
    const field = optionalString(o, 'timeframe') !== null ? 'timeframe' : 'interval'
    throw bad(field, 'must be 1 to 16 letters and digits, e.g. 15, 60, 1D or 4h')
  }
  const strategy = optionalString(o, 'strategy')
  if (strategy !== null && (strategy === '' || [...strategy].length > STRATEGY_MAX)) {
    throw bad('strategy', `must be 1 to ${STRATEGY_MAX} characters`)
  }
  const alertId = optionalString(o, 'alert_id')
  if (alertId !== null && (alertId === '' || [...alertId].length > ALERT_ID_MAX)) {
    throw bad('alert_id', `must be 1 to ${ALERT_ID_MAX} characters, e.g. {{strategy.order.id}}`)
  }
  const message = optionalString(o, 'message')
  if (message !== null && [...message].length > MESSAGE_MAX)
    throw bad('message', `must be at most ${MESSAGE_MAX} characters`)
  const sent = o['direction'] !== undefined && o['direction'] !== null
  const acted = o['action'] !== undefined && o['action'] !== null
  const dir = sent || !acted ? direction(o['direction'], 'direction') : direction(o['action'], 'action')
  if (sent && acted && direction(o['action'], 'action') !== dir) {
    throw bad('action', `and direction disagree (${show(o['action'])} is not ${show(o['direction'])})`)
  }
  return {
    symbol: symbol.trim(),
    direction: dir,
    timeframe,
    strategy,
    price: price(o['price']),
    alertId,
    seq: readSeq(o['seq']),
    barTime: readBarTime(o['time']),
    tickerAlso: o['symbol'] !== undefined && o['symbol'] !== null ? ticker : null
  }
}

const show = (v: unknown): string => JSON.stringify(v).slice(0, 40)

/** `ticker` ({{ticker}}), prefixed with `exchange:` when both are sent and the ticker has no prefix; null when absent. */
function tickerOf(o: Readonly<Record<string, unknown>>, exchange: string | null): string | null {
  const t = optionalString(o, 'ticker')
  if (t === null) return null
  if (t === '' || t.length > SYMBOL_MAX) {
    throw bad('ticker', `must be a string of 1 to ${SYMBOL_MAX} characters, e.g. BTCUSDT.P ({{ticker}})`)
  }
  const joined = exchange !== null && !t.includes(':') ? `${exchange}:${t}` : t
  return joined.length <= SYMBOL_MAX ? joined : t
}

/** A canonical field and the template field standing in for it: one value, or 400 naming both when they differ. */
function agreed(
  o: Readonly<Record<string, unknown>>,
  field: string,
  alias: string,
  a: string | null,
  b: string | null
): string | null {
  if (a !== null && b !== null && a !== b) {
    throw bad(alias, `and ${field} disagree (${show(o[alias])} is not ${show(o[field])}); send one of them`)
  }
  return a ?? b
}
