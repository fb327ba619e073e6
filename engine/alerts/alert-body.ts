/**
 * @module
 * Reading an inbound alert's body (spec "Inbound alert body"): a JSON object whatever the Content-Type
 * (TradingView sends `text/plain` unless the message is valid JSON) with `secret`, `symbol`, `direction`
 * and optional `timeframe`, `strategy`, `price`. Reading happens in two steps so nothing about the fields is
 * said before the secret is checked: `parseAlertJson` (400 `invalid_body` for a body that is not a JSON
 * object) and, once the secret holds, `readAlertFields` (400 `invalid_parameter` naming the field).
 */
import { ApiError } from '../errors.js'

export const ALERT_FIELDS = ['secret', 'symbol', 'direction', 'timeframe', 'strategy', 'price'] as const

/** Longest `strategy`, code points: a strategy's name as TradingView shows it fits. */
export const STRATEGY_MAX = 100
/** `timeframe`: TradingView's `{{interval}}` (1, 60, 240, 1D, 1W, 1M, 30S) or the usual 1m, 4h, 1d. */
const TIMEFRAME = /^[A-Za-z0-9]{1,16}$/
/** Longest symbol read (engine/symbols/resolve.ts reads at most 40 characters). */
const SYMBOL_MAX = 40

/** The alert as read, before the symbol is resolved. */
export interface AlertFields {
  /** as sent, trimmed (resolved to its base later) */
  readonly symbol: string
  readonly direction: 'long' | 'short'
  readonly timeframe: string | null
  readonly strategy: string | null
  /** the price the alert fired at, as sent; informational (the confirmation reads the live state) */
  readonly price: number | null
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

function direction(v: unknown): 'long' | 'short' {
  if (typeof v === 'string') {
    const d = v.trim().toLowerCase()
    // buy/sell: TradingView's {{strategy.order.action}}
    if (d === 'long' || d === 'buy') return 'long'
    if (d === 'short' || d === 'sell') return 'short'
  }
  if (v === undefined || v === null) throw bad('direction', 'is required: long or short')
  const shown = JSON.stringify(v).slice(0, 40)
  throw bad('direction', `must be long or short (buy and sell read as long and short); got ${shown}`)
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
  const symbol = o['symbol']
  if (symbol === undefined || symbol === null)
    throw bad('symbol', 'is required, e.g. BTC, BTCUSDT or BINANCE:BTCUSDT.P')
  if (typeof symbol !== 'string' || symbol.trim() === '' || symbol.trim().length > SYMBOL_MAX) {
    throw bad('symbol', `must be a string of 1 to ${SYMBOL_MAX} characters, e.g. BTC, BTCUSDT or BINANCE:BTCUSDT.P`)
  }
  const timeframe = optionalString(o, 'timeframe')
  if (timeframe !== null && !TIMEFRAME.test(timeframe)) {
    throw bad('timeframe', 'must be 1 to 16 letters and digits, e.g. 15, 60, 1D or 4h')
  }
  const strategy = optionalString(o, 'strategy')
  if (strategy !== null && (strategy === '' || [...strategy].length > STRATEGY_MAX)) {
    throw bad('strategy', `must be 1 to ${STRATEGY_MAX} characters`)
  }
  return {
    symbol: symbol.trim(),
    direction: direction(o['direction']),
    timeframe,
    strategy,
    price: price(o['price'])
  }
}
