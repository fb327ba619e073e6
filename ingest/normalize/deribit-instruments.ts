/**
 * @module
 * Deribit option instruments: the JSON-RPC paths the adapter uses (REST and socket answers are both told
 * apart by them), the instrument list of `public/get_instruments` (expiry, inverse or linear), and the
 * DERIBIT_SYMBOLS match. Instrument names follow Deribit's "Naming": `CCY-DMMMYY-STRIKE-C|P`, the day
 * without a leading zero, a `d` as the decimal point of linear (USDC) option strikes; expiry 08:00 UTC
 * (engine/options/instrument.ts parses them).
 */
import { parseInstrument } from '../../engine/options/instrument.js'

/** JSON-RPC methods as request paths (REST `<base>/public/...`; socket answers get the same channel). */
export const DERIBIT_PATHS = {
  instruments: '/public/get_instruments',
  bookSummaryByCurrency: '/public/get_book_summary_by_currency',
  bookSummaryByInstrument: '/public/get_book_summary_by_instrument',
  setHeartbeat: '/public/set_heartbeat',
  test: '/public/test',
  /**
   * not a Deribit method: the transport's mark of the start of a DERIBIT_SYMBOLS poll pass, queued (and
   * recorded) before the pass's requests as `{"result":<epoch ms>}`; the pass's quotes carry that time
   */
  pollPass: '/tidewatch/poll_pass'
} as const

/** The currencies with inverse BTC/ETH option chains; the only ones DERIBIT_CURRENCIES accepts. */
export const DERIBIT_CURRENCIES = ['BTC', 'ETH'] as const
export type DeribitCurrency = (typeof DERIBIT_CURRENCIES)[number]

export interface InstrumentMeta {
  /** exchange-native name, e.g. `BTC-5JAN27-100000-C` */
  readonly name: string
  /** expiry, epoch ms (Deribit: 08:00 UTC of the coded date) */
  readonly expiryMs: number
  /** linear (USDC-settled) option: prices in USDC instead of the base coin */
  readonly linear: boolean
}

interface InstrumentRow {
  instrument_name?: unknown
  kind?: unknown
  expiration_timestamp?: unknown
  instrument_type?: unknown
}

/**
 * Options of a `public/get_instruments` answer (`{"jsonrpc":"2.0","result":[…]}`); null when the body is
 * not one. Rows that are not options or lack a name or expiry are left out.
 */
export function optionInstruments(body: unknown): InstrumentMeta[] | null {
  const rows = (body as { result?: unknown } | null)?.result
  if (!Array.isArray(rows)) return null
  const out: InstrumentMeta[] = []
  for (const r of rows as (InstrumentRow | null)[]) {
    if (r?.kind !== 'option' || typeof r.instrument_name !== 'string') continue
    const expiry = r.expiration_timestamp
    if (typeof expiry !== 'number' || !Number.isSafeInteger(expiry)) continue
    out.push({ name: r.instrument_name, expiryMs: expiry, linear: r.instrument_type === 'linear' })
  }
  return out
}

/** Meta of an option from its name alone (not in an instrument list yet); null when it is not an option. */
export function instrumentFromName(name: string): InstrumentMeta | null {
  const p = parseInstrument(name)
  // linear options carry their settlement in the currency part: `XRP_USDC-…`
  return p === null ? null : { name, expiryMs: p.expiryMs, linear: p.currency.includes('_') }
}

/**
 * DERIBIT_SYMBOLS match: an entry is a whole instrument name (`BTC-27MAR26-100000-C`) or an expiry prefix
 * (`BTC-27MAR26`, every strike and type of that expiry).
 */
export function matchesSymbols(name: string, symbols: readonly string[]): boolean {
  return symbols.some((s) => name === s || name.startsWith(`${s}-`))
}
