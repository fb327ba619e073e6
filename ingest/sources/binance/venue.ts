/**
 * @module
 * Binance USD-M perpetuals as a venue (ingest/sources/venue-module.ts): plain `BINANCE_SYMBOLS`, the
 * combined-stream transport of ingest/sources/binance.ts.
 */
import { BinanceSource } from '../binance.js'
import { venueModule } from '../venue-module.js'
import { PLAIN_SYMBOL_VARIABLES, plainSymbols } from '../venue-settings.js'

export const venue = venueModule({
  variables: PLAIN_SYMBOL_VARIABLES,
  settings: (env) => ({ symbols: plainSymbols(env) }),
  create: (c, ctx) => new BinanceSource({ ...c, ...ctx })
})
