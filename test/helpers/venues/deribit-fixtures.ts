/**
 * Deribit option fixtures written from the documented formats (docs.deribit.com: public/get_instruments,
 * public/get_book_summary_by_currency and json-schema/book_summary.json, public/set_heartbeat; shared
 * reference C.1). Chains for BTC and ETH with instrument names of every form: one- and two-digit days
 * (`BTC-4DEC26-…`, `BTC-18DEC26-…`), several expiries, calls and puts, strikes inside and outside the
 * 0.5×-2× band, and one instrument that expired this morning (still in the book summary, no longer in the
 * instrument list). Linear USDC names with a `d` decimal strike (`XRP_USDC-30JUN27-0d625-C`) are in
 * LINEAR_ROWS for the normalizer. Expiry codes are built here, independently of the production parser.
 * Open interest and volume are multiples of 0.5 coin, so sums and max-pain payouts are exact in floating point.
 */

export const DAY_MS = 86_400_000
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']

/** Deribit expiry code of the UTC date of `ms`: day without a leading zero (`4DEC26`, `18DEC26`). */
export function expiryCode(ms: number): string {
  const d = new Date(ms)
  return `${d.getUTCDate()}${MONTHS[d.getUTCMonth()]}${String(d.getUTCFullYear() % 100).padStart(2, '0')}`
}

/** 08:00 UTC of the day `days` after the UTC day of `now`. */
export function at0800(now: number, days: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + days * DAY_MS + 8 * 3_600_000
}

export interface OptionSpec {
  readonly currency: 'BTC' | 'ETH'
  readonly name: string
  readonly expiryMs: number
  readonly strike: number
  readonly type: 'C' | 'P'
  /** contracts = coins */
  readonly oi: number
  readonly volume: number
  /** base coin */
  readonly mark: number
  /** percent */
  readonly iv: number
  readonly bid: number | null
  readonly ask: number | null
  /** USD */
  readonly underlying: number
  readonly underlyingIndex: string
}

/**
 * Expiries around `now`: the first ones ahead with a one-digit and a two-digit day, one about 100 days out,
 * and this morning's 08:00 (expired from 08:00 on; before 08:00 UTC it is yesterday's).
 */
export function expiries(now: number): { oneDigit: number; twoDigit: number; far: number; expired: number } {
  let oneDigit = 0
  let twoDigit = 0
  for (let k = 1; oneDigit === 0 || twoDigit === 0; k++) {
    const t = at0800(now, k)
    if (new Date(t).getUTCDate() < 10) oneDigit ||= t
    else twoDigit ||= t
  }
  const today = at0800(now, 0)
  return { oneDigit, twoDigit, far: at0800(now, 100), expired: today <= now ? today : at0800(now, -1) }
}

const STRIKES = {
  BTC: [40_000, 80_000, 90_000, 95_000, 100_000, 110_000, 120_000, 250_000],
  ETH: [1_500, 2_800, 3_000, 3_200, 3_400, 3_600, 4_000, 8_000]
}
/** index prices, USD; longer expiries are priced off their (synthetic) futures */
export const INDEX = { BTC: 97_150.25, ETH: 3_412.35 }
const FUTURE_PREMIUM = [1, 1.0027, 1.018]

function spec(currency: 'BTC' | 'ETH', expiryMs: number, e: number, s: number, type: 'C' | 'P'): OptionSpec {
  const strike = STRIKES[currency][s]!
  const underlying = Math.round(INDEX[currency] * FUTURE_PREMIUM[e]! * 100) / 100
  const intrinsic = Math.max(0, type === 'C' ? underlying - strike : strike - underlying) / underlying
  const mark = Math.max(0.0001, Math.round((intrinsic + 0.012 * (e + 1)) * 10_000) / 10_000)
  const code = expiryCode(expiryMs)
  return {
    currency,
    name: `${currency}-${code}-${strike}-${type}`,
    expiryMs,
    strike,
    type,
    // 5 .. 121 coins, shaped so calls and puts peak at different strikes; the nearest expiry is put-heavy
    // and the far one call-heavy, so max pain differs between expiries
    oi:
      (((s * 7 + e * 3 + (type === 'P' ? 5 : 0)) % 11) + 1) *
      (type === 'C' ? 5 : 5.5) *
      (e === (type === 'P' ? 0 : 2) ? 2 : 1),
    volume: ((s + e) % 4) * 0.5,
    mark,
    iv: Math.round((48 + Math.abs(Math.log(strike / underlying)) * 30 + e) * 100) / 100,
    bid: mark > 0.0005 ? Math.round((mark - 0.0005) * 10_000) / 10_000 : null,
    ask: Math.round((mark + 0.0005) * 10_000) / 10_000,
    underlying,
    underlyingIndex: e === 0 ? 'index_price' : e === 1 ? `SYN.${currency}-${code}` : `${currency}-${code}`
  }
}

/** The options of `currency` at `now`: three live expiries × 8 strikes × call/put, plus 2 expired ones. */
export function chain(currency: 'BTC' | 'ETH', now: number): OptionSpec[] {
  const x = expiries(now)
  const out: OptionSpec[] = []
  ;[x.oneDigit, x.twoDigit, x.far].forEach((expiry, e) => {
    for (let s = 0; s < STRIKES[currency].length; s++)
      for (const t of ['C', 'P'] as const) out.push(spec(currency, expiry, e, s, t))
  })
  out.push(spec(currency, x.expired, 0, 3, 'C'), spec(currency, x.expired, 0, 3, 'P'))
  return out
}

/** A `public/get_instruments` row (documented field set of an inverse option). */
export function instrumentRow(o: OptionSpec, id: number): Record<string, unknown> {
  const days = (o.expiryMs - Date.UTC(2026, 0, 1)) / DAY_MS
  return {
    tick_size: 0.0001,
    tick_size_steps: [{ above_price: 0.005, tick_size: 0.0005 }],
    taker_commission: 0.0003,
    strike: o.strike,
    settlement_period: days > 60 ? 'month' : 'week',
    settlement_currency: o.currency,
    rfq: false,
    quote_currency: o.currency,
    price_index: `${o.currency.toLowerCase()}_usd`,
    option_type: o.type === 'C' ? 'call' : 'put',
    min_trade_amount: o.currency === 'BTC' ? 0.1 : 1,
    maker_commission: 0.0003,
    kind: 'option',
    is_active: true,
    instrument_name: o.name,
    instrument_id: id,
    instrument_type: 'reversed',
    expiration_timestamp: o.expiryMs,
    creation_timestamp: o.expiryMs - 30 * DAY_MS,
    counter_currency: 'USD',
    contract_size: 1,
    block_trade_tick_size: 0.0001,
    block_trade_min_trade_amount: 25,
    block_trade_commission: 0.00015,
    base_currency: o.currency
  }
}

/** A `public/get_book_summary_by_currency` row (json-schema/book_summary.json, option fields). */
export function bookSummaryRow(o: OptionSpec, ts: number): Record<string, unknown> {
  return {
    volume: o.volume,
    volume_usd: Math.round(o.volume * o.mark * o.underlying * 100) / 100,
    underlying_price: o.underlying,
    underlying_index: o.underlyingIndex,
    quote_currency: o.currency,
    price_change: o.volume > 0 ? -3.2258 : null,
    open_interest: o.oi,
    mid_price: o.bid === null || o.ask === null ? null : Math.round(((o.bid + o.ask) / 2) * 100_000) / 100_000,
    mark_price: o.mark,
    mark_iv: o.iv,
    low: o.volume > 0 ? o.mark : null,
    last: o.volume > 0 ? o.mark : null,
    interest_rate: 0,
    instrument_name: o.name,
    high: o.volume > 0 ? o.mark : null,
    estimated_delivery_price: INDEX[o.currency],
    creation_timestamp: ts,
    bid_price: o.bid,
    base_currency: o.currency,
    ask_price: o.ask
  }
}

/** JSON-RPC 2.0 result envelope as Deribit sends it (REST answers carry no id). */
export function rpcResult(result: unknown, id?: number): Record<string, unknown> {
  const usIn = Date.now() * 1000
  return {
    jsonrpc: '2.0',
    ...(id !== undefined && { id }),
    result,
    usIn,
    usOut: usIn + 412,
    usDiff: 412,
    testnet: false
  }
}

export function rpcError(code: number, message: string, id?: number | null, data?: unknown): Record<string, unknown> {
  const usIn = Date.now() * 1000
  return {
    jsonrpc: '2.0',
    ...(id !== undefined && { id }),
    error: { message, code, ...(data !== undefined && { data }) },
    usIn,
    usOut: usIn + 35,
    usDiff: 35,
    testnet: false
  }
}

/**
 * Linear USDC options (names from Deribit's "Naming": `d` is the decimal point of the strike) as a book
 * summary would carry them: prices in USDC per coin.
 */
export const LINEAR_ROWS: readonly Record<string, unknown>[] = [
  {
    instrument_name: 'XRP_USDC-30JUN27-0d625-C',
    creation_timestamp: 1_795_345_200_000,
    underlying_price: 0.6,
    underlying_index: 'XRP_USDC-30JUN27',
    mark_price: 0.054,
    mark_iv: 71.5,
    open_interest: 12_000,
    volume: 1_500,
    bid_price: 0.051,
    ask_price: 0.057,
    quote_currency: 'USDC',
    base_currency: 'XRP'
  },
  {
    instrument_name: 'SOL_USDC-4DEC26-17d5-P',
    creation_timestamp: 1_795_345_200_000,
    underlying_price: 140,
    underlying_index: 'index_price',
    mark_price: 0.07,
    mark_iv: 88.25,
    open_interest: 40,
    volume: 0,
    bid_price: null,
    ask_price: 0.14,
    quote_currency: 'USDC',
    base_currency: 'SOL'
  }
]
