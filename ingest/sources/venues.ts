/**
 * @module
 * The venue registry: every exchange venue SOURCES can name, in one place. An entry says how the venue is
 * configured (its variable prefix, default WebSocket and REST URLs, how its symbols and any other settings
 * are read, whether `SOURCES=live` includes it) and builds its Source from that configuration.
 * `server/config.ts` derives from it the names SOURCES accepts (and its error message), what `live`
 * means and `config.venues.<name>`; `server/start.ts` builds the sources with `createVenueSource`.
 */
import type { Logger } from '../../engine/log.js'
import { BinanceSource } from './binance.js'
import { BybitSource } from './bybit.js'
import { DeribitSource } from './deribit.js'
import { OkxSource } from './okx.js'
import type { Source } from './source.js'
import { deribitCurrencies, deribitSymbols, okxInstruments, plainSymbols, type VenueEnv } from './venue-settings.js'

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

/** One venue. `S` is what `settings` reads: the symbols and any venue-specific settings. */
export interface Venue<
  N extends string = string,
  S extends Pick<VenueConfig, 'symbols'> = Pick<VenueConfig, 'symbols'>
> {
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
  /** reads `<PREFIX>_SYMBOLS` and the venue's other variables; errors name the variable (`env.fail`) */
  readonly settings: (env: VenueEnv) => S
  /** the venue's Source, from its `config.venues.<name>` */
  readonly create: (config: VenueConfig & Readonly<S>, ctx: VenueContext) => Source
  // a replay's normalizers: ingest/record/replay-normalizers.ts (REPLAY_NORMALIZERS, one per venue name)
}

/** Types an entry: `S` is inferred from `settings`, so `create` sees the venue's own settings. */
function venue<N extends string, S extends Pick<VenueConfig, 'symbols'>>(v: Venue<N, S>): Venue<N, S> {
  return v
}

/** The registry. Order is the order SOURCES lists the venues in its error message. */
export const VENUES = [
  venue({
    name: 'binance',
    envPrefix: 'BINANCE',
    live: true,
    // the source connects to the combined-stream endpoint `<base>/stream`
    wsUrl: 'wss://fstream.binance.com',
    restUrl: 'https://fapi.binance.com',
    settings: (env) => ({ symbols: plainSymbols(env) }),
    create: (c, ctx) => new BinanceSource({ ...c, ...ctx })
  }),
  venue({
    name: 'bybit',
    envPrefix: 'BYBIT',
    live: true,
    wsUrl: 'wss://stream.bybit.com/v5/public/linear',
    restUrl: 'https://api.bybit.com',
    settings: (env) => ({ symbols: plainSymbols(env) }),
    create: (c, ctx) => new BybitSource({ ...c, ...ctx })
  }),
  venue({
    name: 'okx',
    envPrefix: 'OKX',
    live: true,
    wsUrl: 'wss://ws.okx.com:8443/ws/v5/public',
    restUrl: 'https://www.okx.com',
    settings: (env) => ({ symbols: okxInstruments(env) }),
    create: (c, ctx) => new OkxSource({ ...c, ...ctx })
  }),
  venue({
    name: 'deribit',
    envPrefix: 'DERIBIT',
    live: true,
    wsUrl: 'wss://www.deribit.com/ws/api/v2',
    restUrl: 'https://www.deribit.com/api/v2',
    settings: (env) => {
      const currencies = deribitCurrencies(env)
      return { currencies, symbols: deribitSymbols(env, currencies) }
    },
    create: (c, ctx) => new DeribitSource({ ...c, ...ctx })
  })
] as const

type AnyVenue = (typeof VENUES)[number]
export type VenueName = AnyVenue['name']
/** `config.venues`: each venue's configuration, read by server/config.ts from its entry. */
export type VenueConfigs = {
  readonly [V in AnyVenue as V['name']]: VenueConfig & Readonly<ReturnType<V['settings']>>
}

export function isVenueName(name: string): name is VenueName {
  return VENUES.some((v) => v.name === name)
}

/** The Source of venue `name` from its configuration. */
export function createVenueSource(name: VenueName, configs: VenueConfigs, ctx: VenueContext): Source {
  const entry = VENUES.find((v) => v.name === name)!
  // each entry's factory takes its own venue's config, which is `configs[name]` for the entry named `name`
  const create = entry.create as (config: VenueConfig, ctx: VenueContext) => Source
  return create(configs[name], { ...ctx, log: ctx.log.child({ source: name }) })
}
