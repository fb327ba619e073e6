/**
 * @module
 * Deribit options as a venue (ingest/sources/venue-module.ts): `DERIBIT_CURRENCIES` (the option chains to
 * follow) and `DERIBIT_SYMBOLS` (instruments or expiries of them), the transport of ingest/sources/deribit.ts.
 */
import { DeribitSource } from '../deribit.js'
import { venueModule } from '../venue-module.js'
import type { VenueEnv } from '../venue-settings.js'
import { EnvText } from '../../../engine/config/env.js'

/** `config.venues.deribit` besides the common settings. */
export interface DeribitSettings {
  readonly symbols: readonly string[]
  /** DERIBIT_CURRENCIES: the option chains followed */
  readonly currencies: readonly string[]
}

declare module '../venue-module.js' {
  interface VenueSettingsById {
    deribit: DeribitSettings
  }
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

export const venue = venueModule<DeribitSettings>({
  variables: {
    CURRENCIES: EnvText({
      description: 'option chains to follow',
      accepted: `a comma list of ${DERIBIT_CURRENCY_LIST.join(', ')}`,
      default: DERIBIT_CURRENCY_LIST.join(',')
    }),
    SYMBOLS: EnvText({
      description: 'only these options or expiries; empty: every option of the currencies',
      accepted: 'a comma list of options or expiries like BTC-27MAR26-100000-C or BTC-27MAR26',
      family: '<PREFIX>_SYMBOLS'
    })
  },
  settings: (env) => {
    const currencies = deribitCurrencies(env)
    return { currencies, symbols: deribitSymbols(env, currencies) }
  },
  create: (c, ctx) => new DeribitSource({ ...c, ...ctx })
})
