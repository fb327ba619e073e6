/**
 * @module
 * The exchange venues, declared once: what each is called, what it trades, its variables and default
 * endpoints, its TradingView prefixes and its part in the demo market. Record types, API schemas and their
 * messages, the symbol resolver, the demo universe and the dashboard derive their venue lists from here.
 * The code of a venue (transport, normalizer, settings reader) is found from `id` by convention:
 * `ingest/sources/<id>/venue.ts` and `ingest/sources/<id>/replay.ts` (docs/sources.md, "Adding a venue").
 *
 * Neutral: imports nothing from engine/, ingest/ or server/, no node builtins and no packages, so the
 * dashboard (web/) bundles it too.
 */
import { listText } from './text.js'

/** What a venue's markets are: USDT-margined perpetual swaps, or inverse options. */
export type VenueKind = 'perpetual' | 'options'

export interface VenueEntry {
  /** the id everywhere: records' `exchange`, SOURCES, API `exchange` values, `/v1/health` source name */
  readonly id: string
  /** how people write the name (messages, the dashboard) */
  readonly label: string
  readonly kind: VenueKind
  /** its variables are `<envPrefix>_WS_URL`, `_REST_URL`, `_SYMBOLS`, ... */
  readonly envPrefix: string
  /** default of `<PREFIX>_WS_URL` */
  readonly wsUrl: string
  /** default of `<PREFIX>_REST_URL` */
  readonly restUrl: string
  /** part of `SOURCES=live` */
  readonly live: boolean
  /** TradingView exchange prefixes naming it (`BINANCE:BTCUSDT.P`), the usual one first */
  readonly tradingView: readonly string[]
  /** the native name of its BTC USDT market, written with `{BASE}` for the coin (`{BASE}-USDT-SWAP`) */
  readonly usdtMarket?: string
  /**
   * Tardis (tardis.dev) exchange ids of its markets, for history imports: `perp` stored under the venue's id,
   * `spot` under its spot id (`binance-spot`)
   */
  readonly tardis?: { readonly perp?: string; readonly spot?: string }
  /**
   * demo market: probability that the venue lists an asset ranked below the always-listed majors
   * (perpetuals; OKX lists fewer small caps than Binance); absent: the venue is not in the demo market
   */
  readonly demoListingProbability?: number
  /** demo market: the open interest the venue holds relative to the first venue's (perpetuals) */
  readonly demoOiShare?: number
}

/** Every venue, in the default venue order (the first venue listing a market is the one used by default). */
export const VENUES = [
  {
    id: 'binance',
    label: 'Binance',
    kind: 'perpetual',
    envPrefix: 'BINANCE',
    // the source connects to the combined-stream endpoint `<base>/stream`
    wsUrl: 'wss://fstream.binance.com',
    restUrl: 'https://fapi.binance.com',
    live: true,
    tradingView: ['BINANCE'],
    usdtMarket: '{BASE}USDT',
    tardis: { perp: 'binance-futures', spot: 'binance' },
    demoListingProbability: 0.97,
    demoOiShare: 1
  },
  {
    id: 'bybit',
    label: 'Bybit',
    kind: 'perpetual',
    envPrefix: 'BYBIT',
    wsUrl: 'wss://stream.bybit.com/v5/public/linear',
    restUrl: 'https://api.bybit.com',
    live: true,
    tradingView: ['BYBIT'],
    usdtMarket: '{BASE}USDT',
    tardis: { perp: 'bybit', spot: 'bybit-spot' },
    demoListingProbability: 0.93,
    demoOiShare: 0.6
  },
  {
    id: 'okx',
    label: 'OKX',
    kind: 'perpetual',
    envPrefix: 'OKX',
    wsUrl: 'wss://ws.okx.com:8443/ws/v5/public',
    restUrl: 'https://www.okx.com',
    live: true,
    // OKEX: the name TradingView kept from OKX's former name
    tradingView: ['OKX', 'OKEX'],
    usdtMarket: '{BASE}-USDT-SWAP',
    // okex: Tardis keeps OKX's former name
    tardis: { perp: 'okex-swap', spot: 'okex' },
    demoListingProbability: 0.74,
    demoOiShare: 0.4
  },
  {
    id: 'deribit',
    label: 'Deribit',
    kind: 'options',
    envPrefix: 'DERIBIT',
    wsUrl: 'wss://www.deribit.com/ws/api/v2',
    restUrl: 'https://www.deribit.com/api/v2',
    live: true,
    tradingView: ['DERIBIT'],
    // its options are stored as derivatives under the venue's id
    tardis: { perp: 'deribit' }
  },
  {
    id: 'bitget',
    label: 'Bitget',
    kind: 'perpetual',
    envPrefix: 'BITGET',
    // the unified (v3) public endpoint; the v2 mix endpoint is the previous generation
    wsUrl: 'wss://ws.bitget.com/v3/ws/public',
    restUrl: 'https://api.bitget.com',
    // opt-in (SOURCES=bitget): not part of SOURCES=live
    live: false,
    tradingView: ['BITGET'],
    usdtMarket: '{BASE}USDT'
    // not in the demo market (no demoListingProbability): the demo universe and the benchmarks built on it
    // span the other perpetual venues
  }
] as const satisfies readonly VenueEntry[]

type AnyVenue = (typeof VENUES)[number]
/** A venue id. */
export type VenueId = AnyVenue['id']
/** A perpetual venue id. */
export type PerpVenueId = Extract<AnyVenue, { kind: 'perpetual' }>['id']

/** Every venue id, in the default venue order. */
export const VENUE_IDS: readonly VenueId[] = VENUES.map((v) => v.id)

const isPerp = (v: AnyVenue): v is Extract<AnyVenue, { kind: 'perpetual' }> => v.kind === 'perpetual'

/** The perpetual venues, in the default venue order. */
export const PERP_VENUES = VENUES.filter(isPerp)
/** Their ids (`binance`, `bybit`, `okx`), in the default venue order. */
export const PERP_VENUE_IDS: readonly PerpVenueId[] = PERP_VENUES.map((v) => v.id)
/** The options venues' ids. */
export const OPTIONS_VENUE_IDS: readonly VenueId[] = VENUES.filter((v) => v.kind === 'options').map((v) => v.id)

export function isVenueId(v: unknown): v is VenueId {
  return typeof v === 'string' && (VENUE_IDS as readonly string[]).includes(v)
}

export function isPerpVenueId(v: unknown): v is PerpVenueId {
  return typeof v === 'string' && (PERP_VENUE_IDS as readonly string[]).includes(v)
}

/** The catalog entry of `id`. */
export function venueOf(id: VenueId): VenueEntry {
  return VENUES.find((v) => v.id === id)!
}

/** A spot venue's id: the venue's id with this suffix (`binance-spot`); its records carry `market: 'spot'`. */
export const SPOT_SUFFIX = '-spot'

export const spotVenueId = (id: VenueId): string => `${id}${SPOT_SUFFIX}`

/** The native name of `base`'s USDT perpetual on `venue` (`BTCUSDT`, `BTC-USDT-SWAP`). */
export function usdtPerpSymbol(venue: PerpVenueId, base: string): string {
  return venueOf(venue).usdtMarket!.replace('{BASE}', base)
}

/** Funding interval (hours) assumed when a venue does not say: the default of every perpetual venue. */
export const DEFAULT_FUNDING_INTERVAL_HOURS = 8

/** `Binance, Bybit or OKX`: the perpetual venues' labels as a list. */
export const perpVenueLabels = (conjunction: 'or' | 'and'): string =>
  listText(
    PERP_VENUES.map((v) => v.label),
    conjunction
  )

/** `binance, bybit or okx`: the perpetual venues' ids as a list (`, ` alone when `conjunction` is omitted). */
export const perpVenueIdList = (conjunction?: 'or' | 'and'): string =>
  conjunction === undefined ? PERP_VENUE_IDS.join(', ') : listText(PERP_VENUE_IDS, conjunction)

/** `BINANCE:, BYBIT:, OKX:` (or `BINANCE:, BYBIT: or OKX:`): the usual TradingView prefix of each perpetual venue. */
export const perpTradingViewPrefixes = (conjunction?: 'or' | 'and'): string => {
  const prefixes = PERP_VENUES.map((v) => `${v.tradingView[0]}:`)
  return conjunction === undefined ? prefixes.join(', ') : listText(prefixes, conjunction)
}
