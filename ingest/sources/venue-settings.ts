/**
 * @module
 * How venue modules (`<venue>/venue.ts`, venue-module.ts) read their own variables: symbol lists and
 * venue-specific settings, validated with messages that name the variable. `server/config.ts` hands each
 * module a `VenueEnv` bound to its prefix, so a module says `SYMBOLS` and the error says `OKX_SYMBOLS`.
 * The plain symbol list is here; a venue's own forms are in its module.
 */
import { EnvText } from '../../engine/config/env.js'

/** A venue's variables, `<PREFIX>_<suffix>` (server/config.ts). */
export interface VenueEnv {
  /** `<PREFIX>_<suffix>` as set (untrimmed); undefined when unset or only blanks */
  get(suffix: string): string | undefined
  /** throws the configuration error `<PREFIX>_<suffix> <message>` */
  fail(suffix: string, message: string): never
}

/** The variables of a venue whose only own setting is a plain symbol list (`<PREFIX>_SYMBOLS`). */
export const PLAIN_SYMBOL_VARIABLES = {
  SYMBOLS: EnvText({
    description: 'only these markets (comma list); empty: every market the venue follows',
    accepted: 'a comma list of symbols like BTCUSDT',
    family: '<PREFIX>_SYMBOLS'
  })
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
