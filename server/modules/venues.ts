/**
 * @module
 * The market sources: the demo market (`sim`), every exchange venue of the registry
 * (ingest/sources/venues.ts) and the replay of a recording (`replay:<path>`). Their records go through the
 * ingest pipeline; they run under the supervisor from the end of the warm-up (server/start.ts).
 */
import type { Logger } from '../../engine/log.js'
import type { Store } from '../../engine/store/store.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { SimSource } from '../../ingest/sources/sim-source.js'
import type { Source } from '../../ingest/sources/source.js'
import { createVenueSource, isVenueName } from '../../ingest/sources/venues.js'
import type { Config, SourceName } from '../config.js'
import type { ServiceModule } from './service-module.js'

export function venuesModule(config: Config, deps: { readonly store: Store; readonly log: Logger }): ServiceModule {
  return {
    name: 'venues',
    sourceFor: (name: SourceName): Source | undefined => {
      if (name === 'sim') {
        return new SimSource({
          seed: config.simSeed,
          backfillDays: config.simBackfillDays,
          maxMarkets: config.simMarkets,
          store: deps.store,
          log: deps.log
        })
      }
      if (isVenueName(name))
        return createVenueSource(name, config.venues, { log: deps.log, recordDir: config.recordDir })
      if (name.startsWith('replay:')) {
        return new ReplaySource({ path: name.slice('replay:'.length), speed: config.replaySpeed, log: deps.log })
      }
      return undefined
    }
  }
}
