/**
 * @module
 * Bitget USDT-margined perpetuals as a venue (ingest/sources/venue-module.ts): plain `BITGET_SYMBOLS`
 * (`BTCUSDT`), the transport of ingest/sources/bitget.ts.
 */
import { BitgetSource } from '../bitget.js'
import { venueModule } from '../venue-module.js'
import { PLAIN_SYMBOL_VARIABLES, plainSymbols } from '../venue-settings.js'

export const venue = venueModule({
  variables: PLAIN_SYMBOL_VARIABLES,
  settings: (env) => ({ symbols: plainSymbols(env) }),
  create: (c, ctx) => new BitgetSource({ ...c, ...ctx })
})
