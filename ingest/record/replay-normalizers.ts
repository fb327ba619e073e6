/**
 * @module
 * The normalizer of each venue a recording may hold, as a replay makes them (one per venue per replay: it
 * keeps per-market state): each catalog venue's `ingest/sources/<id>/replay.ts` (ingest/sources/venue-module.ts),
 * found from the id by a dynamic import awaited once when this module loads. Apart from the venues' live
 * modules, so the replay worker thread does not load the live transports.
 */
import { VENUE_IDS } from '../../catalog/venues.js'
import type { ReplayNormalizerFactory } from '../sources/venue-module.js'

export type { ReplayNormalizerFactory } from '../sources/venue-module.js'

/** The replay normalizer of venue `id`, by convention `ingest/sources/<id>/replay.js`. */
async function factoryOf(id: string): Promise<ReplayNormalizerFactory> {
  const specifier = `../sources/${id}/replay.js`
  const m = (await import(/* @vite-ignore */ specifier)) as { replayNormalizer?: ReplayNormalizerFactory }
  if (m.replayNormalizer === undefined)
    throw new Error(`ingest/sources/${id}/replay.ts exports no \`replayNormalizer\``)
  return m.replayNormalizer
}

/** venue name (the catalog's id) -> its factory, in the catalog's order */
export const REPLAY_NORMALIZERS: ReadonlyMap<string, ReplayNormalizerFactory> = new Map(
  await Promise.all(VENUE_IDS.map(async (id) => [id, await factoryOf(id)] as const))
)
