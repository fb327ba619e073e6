/**
 * @module
 * The live market answers: options chains and their history, derivatives, on-chain metrics, the confirm
 * model and whale flows, all read from the live state or the store. Routes only: the data arrives through
 * the sources of the venue and chain-source modules.
 */
import { confirmHistoryRoutes } from '../routes/confirm-history.js'
import { confirmRoutes } from '../routes/confirm.js'
import { derivativesRoutes } from '../routes/derivatives.js'
import { onchainRoutes } from '../routes/onchain.js'
import { optionsHistoryRoutes } from '../routes/options-history.js'
import { optionsRoutes } from '../routes/options.js'
import { whaleRoutes } from '../routes/whales.js'
import type { ServiceModule } from './service-module.js'

export const marketModule: ServiceModule = {
  name: 'market',
  routes: (ctx) => [
    ...optionsRoutes(ctx),
    ...optionsHistoryRoutes(ctx.store),
    ...derivativesRoutes(ctx),
    ...onchainRoutes(ctx.store),
    ...confirmRoutes(ctx),
    ...confirmHistoryRoutes(ctx),
    ...whaleRoutes(ctx)
  ]
}
