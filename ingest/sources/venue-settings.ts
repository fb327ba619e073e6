/**
 * @module
 * How venue entries (`venues.ts`) read their own variables: symbol lists and venue-specific settings,
 * validated with messages that name the variable. `server/config.ts` hands each entry a `VenueEnv` bound to
 * its prefix, so an entry says `SYMBOLS` and the error says `OKX_SYMBOLS`.
 */

/** A venue's variables, `<PREFIX>_<suffix>` (server/config.ts). */
export interface VenueEnv {
  /** `<PREFIX>_<suffix>` as set (untrimmed); undefined when unset or only blanks */
  get(suffix: string): string | undefined
  /** throws the configuration error `<PREFIX>_<suffix> <message>` */
  fail(suffix: string, message: string): never
}

/** `<PREFIX>_SYMBOLS` as plain exchange symbols (`BTCUSDT`), upper-cased; empty: every market. */
export function plainSymbols(env: VenueEnv): readonly string[] {
  const raw = env.get('SYMBOLS')
  if (raw === undefined) return []
  const list = raw.split(',').map((s) => s.trim().toUpperCase())
  if (list.some((s) => !/^[A-Z0-9]{2,30}$/.test(s))) {
    env.fail('SYMBOLS', `must be a comma list of symbols like BTCUSDT (got '${raw}')`)
  }
  return list
}

/** OKX_SYMBOLS: native instrument ids (`BTC-USDT-SWAP`); `BTCUSDT` is taken as `BTC-USDT-SWAP`. */
export function okxInstruments(env: VenueEnv): readonly string[] {
  const raw = env.get('SYMBOLS')
  if (raw === undefined) return []
  const list = raw.split(',').map((s) => {
    const t = s.trim().toUpperCase()
    const plain = /^([A-Z0-9]{1,20})USDT$/.exec(t)
    return plain ? `${plain[1]}-USDT-SWAP` : t
  })
  if (list.some((s) => !/^[A-Z0-9]{1,20}-USDT-SWAP$/.test(s))) {
    env.fail('SYMBOLS', `must be a comma list of USDT swaps like BTC-USDT-SWAP or BTCUSDT (got '${raw}')`)
  }
  return [...new Set(list)]
}

/** Deribit currencies with inverse option chains (ingest/normalize/deribit-instruments.ts). */
const DERIBIT_CURRENCY_LIST: readonly string[] = ['BTC', 'ETH']

/** DERIBIT_CURRENCIES: the option chains to follow; default both. */
export function deribitCurrencies(env: VenueEnv): readonly string[] {
  const raw = env.get('CURRENCIES')
  if (raw === undefined) return DERIBIT_CURRENCY_LIST
  const list = [...new Set(raw.split(',').map((s) => s.trim().toUpperCase()))]
  if (list.some((c) => !DERIBIT_CURRENCY_LIST.includes(c))) {
    env.fail('CURRENCIES', `must be a comma list of ${DERIBIT_CURRENCY_LIST.join(', ')} (got '${raw}')`)
  }
  return list
}

/** DERIBIT_SYMBOLS: instrument names (`BTC-27MAR26-100000-C`) or expiry prefixes (`BTC-27MAR26`) of `currencies`. */
export function deribitSymbols(env: VenueEnv, currencies: readonly string[]): readonly string[] {
  const raw = env.get('SYMBOLS')
  if (raw === undefined) return []
  // upper case except the `d` decimal point of a strike (tardis-node's casing rule)
  const list = raw.split(',').map((s) =>
    s
      .trim()
      .toUpperCase()
      .replace(/(\d)D(\d)/g, '$1d$2')
  )
  const shape = /^([A-Z]+)-[1-9]\d?[A-Z]{3}\d{2}(-\d+(d\d+)?-[CP])?$/
  const bad = list.find((s) => !currencies.includes(shape.exec(s)?.[1] ?? ''))
  if (bad !== undefined) {
    env.fail(
      'SYMBOLS',
      `must be a comma list of options or expiries of ${currencies.join(', ')} like BTC-27MAR26-100000-C or BTC-27MAR26 (got '${bad}')`
    )
  }
  return list
}
