/**
 * @module
 * The venues SOURCES can name: each catalog venue (catalog/venues.ts: prefix, default URLs, part of
 * `SOURCES=live`) joined with its code, `ingest/sources/<id>/venue.ts` (venue-module.ts), found from the id
 * by a dynamic import awaited once when this module loads. `server/config.ts` derives from `VENUES` the
 * names SOURCES accepts (and its error message), what `live` means and `config.venues.<name>`;
 * `server/start.ts` builds the sources with `createVenueSource`.
 */
import { VENUES as CATALOG_VENUES, isVenueId, type VenueId } from '../../catalog/venues.js'
import type { Source } from './source.js'
import type { VenueConfig, VenueContext, VenueModule, VenueSettingsOf } from './venue-module.js'
import type { VenueEnv } from './venue-settings.js'

export type { VenueConfig, VenueContext } from './venue-module.js'

/** One venue: its catalog entry's configuration and its module's code. `S`: what `settings` reads. */
export interface Venue<N extends string = string, S extends Pick<VenueConfig, 'symbols'> = VenueSettingsOf<N>> {
  /** the SOURCES name, also the source's name in /v1/health and the `v` of its recordings */
  readonly name: N
  /** its variables are `<envPrefix>_WS_URL`, `_REST_URL`, `_SYMBOLS`, ... */
  readonly envPrefix: string
  /** part of `SOURCES=live` */
  readonly live: boolean
  /** default of `<PREFIX>_WS_URL` */
  readonly wsUrl: string
  /** default of `<PREFIX>_REST_URL` */
  readonly restUrl: string
  /** its variables besides `_WS_URL` and `_REST_URL`, by suffix (VenueModule.variables) */
  readonly variables: VenueModule['variables']
  /** reads `<PREFIX>_SYMBOLS` and the venue's other variables; errors name the variable (`env.fail`) */
  readonly settings: (env: VenueEnv) => S
  /** the venue's Source, from its `config.venues.<name>` */
  readonly create: (config: VenueConfig & Readonly<S>, ctx: VenueContext) => Source
}

export type VenueName = VenueId

/** The module of venue `id`, by convention `./<id>/venue.js`. */
async function moduleOf(id: VenueId): Promise<VenueModule> {
  const specifier = `./${id}/venue.js`
  const m = (await import(/* @vite-ignore */ specifier)) as { venue?: VenueModule }
  if (m.venue === undefined) throw new Error(`ingest/sources/${id}/venue.ts exports no \`venue\``)
  return m.venue
}

const MODULES = await Promise.all(CATALOG_VENUES.map((v) => moduleOf(v.id)))

/** Any venue, typed by its own name and settings. */
type AnyVenue = { readonly [N in VenueName]: Venue<N> }[VenueName]

/** Every venue, in the catalog's order (the order SOURCES lists the venues in its error message). */
export const VENUES: readonly AnyVenue[] = CATALOG_VENUES.map(
  (v, i): AnyVenue =>
    // a module's settings are the ones its venue declared (VenueSettingsById), by the convention of venue-module.ts
    Object.freeze({
      name: v.id,
      envPrefix: v.envPrefix,
      live: v.live,
      wsUrl: v.wsUrl,
      restUrl: v.restUrl,
      variables: MODULES[i]!.variables,
      settings: MODULES[i]!.settings,
      create: MODULES[i]!.create
    }) as unknown as AnyVenue
)

/** `config.venues`: each venue's configuration, read by server/config.ts from its entry. */
export type VenueConfigs = {
  readonly [N in VenueName]: VenueConfig & Readonly<VenueSettingsOf<N>>
}

export function isVenueName(name: string): name is VenueName {
  return isVenueId(name)
}

/** The Source of venue `name` from its configuration. */
export function createVenueSource(name: VenueName, configs: VenueConfigs, ctx: VenueContext): Source {
  const entry = VENUES.find((v) => v.name === name)!
  // each entry's factory takes its own venue's config, which is `configs[name]` for the entry named `name`
  const create = entry.create as (config: VenueConfig, ctx: VenueContext) => Source
  return create(configs[name], { ...ctx, log: ctx.log.child({ source: name }) })
}
