/**
 * @module
 * Bitget USDT-margined perpetuals (`SOURCES=bitget`) over Bitget's unified (v3) API: the transport.
 * Discovers the trading USDT perpetuals (`/api/v3/market/instruments?category=USDT-FUTURES`), streams
 * trades and tickers (funding, mark/index price, open interest) per market plus liquidations of every
 * USDT perpetual over the public v3 WebSocket with Bitget's text ping, and polls the accounts long/short
 * ratio per market over REST. Everything the venue sends goes through one bounded RawQueue to the
 * normalizer (`ingest/normalize/bitget.ts`) and, with RECORD_DIR, to the recorder. Rediscovery runs
 * hourly: new listings are subscribed, delisted markets are no longer polled. Trade ids reveal no gaps, so
 * every reopened connection is marked in the raw queue and the recent trades of its markets are fetched
 * (`feed/reconnect-fill.ts`, docs/sources.md).
 */
import type { Logger } from '../../engine/log.js'
import { BitgetNormalizer } from '../normalize/bitget.js'
import { usdtPerpetuals, type BitgetMarket } from '../normalize/bitget-markets.js'
import { BitgetConnections } from './bitget/connections.js'
import { pollLongShort } from './bitget/pollers.js'
import { BitgetRest, INSTRUMENTS_PATH, recentTradesPath } from './bitget/rest.js'
import { LIQUIDATIONS, marketArgs, type BitgetArg } from './bitget/topics.js'
import { DEFAULT_BACKOFF } from '../../engine/runtime/backoff.js'
import { TickerVenueSource, type TopicVenueTuning } from './feed/ticker-venue-source.js'
import { ReconnectFiller } from './feed/reconnect-fill.js'
import { stickyPaths } from './feed/venue-feed.js'

export interface BitgetTuning extends TopicVenueTuning {
  /** subscription args per WebSocket connection (2 per market; Bitget recommends under 50). @default 48 */
  readonly argsPerConnection: number
  /** text `ping` period, ms (Bitget asks for one every 30 s and drops a line without one for 2 min). @default 25_000 */
  readonly pingMs: number
  /** long/short requests per minute (Bitget allows 60). @default 30 */
  readonly longShortPerMinute: number
}

export const DEFAULT_BITGET_TUNING: BitgetTuning = {
  argsPerConnection: 48,
  subscribeBatch: 12,
  // Bitget takes 10 subscribe messages a second
  subscribeIntervalMs: 200,
  pingMs: 25_000,
  // 5-minute readings; a pass is paced by the 1-a-second limit
  longShortEveryMs: 900_000,
  discoveryEveryMs: 3_600_000,
  queueCapacity: 100_000,
  staleMs: 40_000,
  backoff: DEFAULT_BACKOFF,
  longShortPerMinute: 30
}

export interface BitgetSourceOptions {
  /** public v3 WebSocket endpoint, e.g. wss://ws.bitget.com/v3/ws/public */
  readonly wsUrl: string
  readonly restUrl: string
  /** only these markets (native symbols, `BTCUSDT`); empty: every trading USDT perpetual */
  readonly symbols: readonly string[]
  readonly log: Logger
  /** RECORD_DIR: record raw messages there */
  readonly recordDir?: string | undefined
  readonly tuning?: Partial<BitgetTuning>
}

/** REST answers repeated at the top of each recording file, so every file replays on its own. */
const isSticky = stickyPaths([INSTRUMENTS_PATH.split('?', 1)[0]!])

export class BitgetSource extends TickerVenueSource<BitgetMarket[], BitgetArg> {
  readonly name = 'bitget'
  protected readonly tuning: BitgetTuning
  protected readonly rest: BitgetRest
  protected readonly gaps: ReconnectFiller
  readonly normalizer: BitgetNormalizer

  constructor(private readonly opts: BitgetSourceOptions) {
    const tuning = { ...DEFAULT_BITGET_TUNING, ...opts.tuning }
    super({ log: opts.log, recordDir: opts.recordDir, queueCapacity: tuning.queueCapacity, sticky: isSticky })
    this.tuning = tuning
    this.rest = new BitgetRest({
      baseUrl: opts.restUrl,
      log: opts.log,
      queue: this.queue,
      longShortPerMinute: tuning.longShortPerMinute
    })
    this.gaps = this.reconnectFiller(recentTradesPath, opts.log)
    this.normalizer = new BitgetNormalizer(this.gaps)
  }

  protected openConnections(signal: AbortSignal): BitgetConnections {
    const t = this.tuning
    return new BitgetConnections(
      { ...this.pacedConnections(this.opts.wsUrl, t.argsPerConnection), pingMs: t.pingMs },
      signal
    )
  }

  protected pollLongShort(signal: AbortSignal): Promise<void> {
    return pollLongShort(this.rest, () => this.markets, this.tuning.longShortEveryMs, signal)
  }

  protected override allMarketItems(): readonly BitgetArg[] {
    return [LIQUIDATIONS]
  }

  protected marketsOf(found: BitgetMarket[]): readonly string[] {
    return found.map((m) => m.symbol)
  }

  protected itemsOf(symbol: string): readonly BitgetArg[] {
    return marketArgs(symbol)
  }

  /** The instrument list; the USDT perpetuals to follow, or null when the request failed. */
  protected async discover(signal: AbortSignal): Promise<BitgetMarket[] | null> {
    const markets = await this.fetchParsed(INSTRUMENTS_PATH, signal, usdtPerpetuals)
    if (markets === null) return null
    return this.onlyListed(
      markets,
      this.opts.symbols,
      'BITGET_SYMBOLS names markets that are not trading USDT perpetuals'
    )
  }
}
