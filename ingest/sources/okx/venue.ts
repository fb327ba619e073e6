/**
 * @module
 * OKX USDT swaps as a venue (ingest/sources/venue-module.ts): `OKX_SYMBOLS` as native instrument ids, the
 * transport of ingest/sources/okx.ts.
 */
import { OkxSource } from '../okx.js'
import { venueModule } from '../venue-module.js'
import type { VenueEnv } from '../venue-settings.js'
import { EnvText } from '../../../engine/config/env.js'

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

export const venue = venueModule({
  variables: {
    SYMBOLS: EnvText({
      description: 'only these OKX swaps (comma list); empty: every live USDT swap',
      accepted: 'a comma list of USDT swaps like BTC-USDT-SWAP or BTCUSDT',
      family: '<PREFIX>_SYMBOLS'
    })
  },
  settings: (env) => ({ symbols: okxInstruments(env) }),
  create: (c, ctx) => new OkxSource({ ...c, ...ctx })
})
