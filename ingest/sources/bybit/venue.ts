/**
 * @module
 * Bybit v5 linear perpetuals as a venue (ingest/sources/venue-module.ts): plain `BYBIT_SYMBOLS`, the
 * transport of ingest/sources/bybit.ts.
 */
import { BybitSource } from '../bybit.js'
import { venueModule } from '../venue-module.js'
import { PLAIN_SYMBOL_VARIABLES, plainSymbols } from '../venue-settings.js'

export const venue = venueModule({
  variables: PLAIN_SYMBOL_VARIABLES,
  settings: (env) => ({ symbols: plainSymbols(env) }),
  create: (c, ctx) => new BybitSource({ ...c, ...ctx })
})
