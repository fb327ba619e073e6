/**
 * @module
 * What a venue's code registers, found by the venue's catalog id (catalog/venues.ts) with no hand-kept map:
 *
 * - `ingest/sources/<id>/venue.ts` exports `venue: VenueModule`: how the venue reads its own variables
 *   (symbols and any venue-specific settings) and how it builds its live Source.
 * - `ingest/sources/<id>/replay.ts` exports `replayNormalizer: ReplayNormalizerFactory`: the normalizer a
 *   replay of its recordings runs. Kept in a file of its own so the replay worker thread loads the
 *   normalizers without the live transports (sockets, REST clients, the `ws` package: ~35 ms of loading,
 *   about half the worker's start-up).
 *
 * `venues.ts` and ingest/record/replay-normalizers.ts import these by path built from the id (a dynamic
 * import per catalog venue, awaited once at module load), so adding a venue is its transport, normalizer,
 * these two files and one catalog entry; test/unit/venue-modules.test.ts checks that every catalog venue
 * has both files and every folder holding a `venue.ts` has a catalog entry.
 */
import type { TSchema } from '@sinclair/typebox'
import type { Logger } from '../../engine/log.js'
import type { VenueNormalizer } from '../normalize/normalizer.js'
import type { Source } from './source.js'
import type { VenueEnv } from './venue-settings.js'

/** What every venue has in `config.venues.<name>`. */
export interface VenueConfig {
  /** WebSocket endpoint or base, `<PREFIX>_WS_URL` (ws or wss, trailing slashes removed) */
  readonly wsUrl: string
  /** REST base, `<PREFIX>_REST_URL` (http or https, trailing slashes removed) */
  readonly restUrl: string
  /** only these markets, `<PREFIX>_SYMBOLS` in the venue's native names; empty: every market it follows */
  readonly symbols: readonly string[]
}

/** What a factory gets besides its venue's configuration. */
export interface VenueContext {
  /** the service log; the factory's source logs to a child `{ source: <name> }` */
  readonly log: Logger
  /** RECORD_DIR: record raw messages there */
  readonly recordDir: string | undefined
}

/** The settings every venue reads: its symbols. */
export type BaseVenueSettings = Pick<VenueConfig, 'symbols'>

/**
 * Venue-specific settings types by venue id. A venue whose settings are more than its symbols adds itself
 * here from its own `venue.ts` (`declare module '../venue-module.js' { interface VenueSettingsById { ... } }`),
 * so `config.venues.<id>` is typed without a list kept here.
 */
export interface VenueSettingsById {}

/** The settings of venue `N`: its own when it declared them, else its symbols. */
export type VenueSettingsOf<N extends string> = N extends keyof VenueSettingsById
  ? VenueSettingsById[N]
  : BaseVenueSettings

/** One venue's code. `S` is what `settings` reads: the symbols and any venue-specific settings. */
export interface VenueModule<S extends BaseVenueSettings = BaseVenueSettings> {
  /**
   * its variables besides `_WS_URL` and `_REST_URL`, by suffix (`SYMBOLS`, Deribit's `CURRENCIES`), as
   * schemas of engine/config/env.ts: part of the service's ENV_SCHEMA, checked before `settings` reads them
   */
  readonly variables: Readonly<Record<string, TSchema>>
  /** reads `<PREFIX>_SYMBOLS` and the venue's other variables; errors name the variable (`env.fail`) */
  readonly settings: (env: VenueEnv) => S
  /** the venue's Source, from its `config.venues.<name>` */
  readonly create: (config: VenueConfig & Readonly<S>, ctx: VenueContext) => Source
}

/** Types a venue's module: `S` is inferred from `settings`, so `create` sees the venue's own settings. */
export function venueModule<S extends BaseVenueSettings>(m: VenueModule<S>): VenueModule<S> {
  return m
}

/** A fresh normalizer of one venue; `onGap` counts a trade gap or reconnect window found in the recording. */
export type ReplayNormalizerFactory = (onGap: () => void) => VenueNormalizer
