/**
 * @module
 * OKX v5 USDT perpetual swaps (`SOURCES=okx`): the transport. Discovers the live USDT-settled linear swaps
 * and their contract values (`/api/v5/public/instruments?instType=SWAP`), streams trades, funding rate,
 * open interest and mark price per instrument plus liquidations of every swap over the public WebSocket,
 * and polls the accounts long/short ratio per coin over REST. Everything the venue sends goes through one
 * bounded RawQueue to the normalizer (`ingest/normalize/okx.ts`, where contracts become coins) and, with
 * RECORD_DIR, to the recorder. Rediscovery runs hourly: new listings are subscribed. Trade ids reveal no
 * gaps, so every reopened connection is marked in the raw queue and the recent trades of its instruments
 * are fetched (`feed/reconnect-fill.ts`, docs/sources.md).
 */
import type { Logger } from '../../engine/log.js'
import { OkxNormalizer } from '../normalize/okx.js'
import { usdtSwaps, type OkxMarket } from '../normalize/okx-markets.js'
import { DEFAULT_BACKOFF } from '../../engine/runtime/backoff.js'
import { TickerVenueSource, type TopicVenueTuning } from './feed/ticker-venue-source.js'
import { ReconnectFiller } from './feed/reconnect-fill.js'
import { stickyPaths } from './feed/venue-feed.js'
import { LIQUIDATIONS, instrumentArgs, type OkxArg } from './okx/channels.js'
import { OkxConnections } from './okx/connections.js'
import { pollLongShort, statisticsCoins } from './okx/long-short.js'
import { INSTRUMENTS_PATH, OkxRest, SUPPORT_COIN_PATH, recentTradesPath } from './okx/rest.js'

export interface OkxTuning extends TopicVenueTuning {
  /** subscription args per WebSocket connection (4 per instrument). @default 200 */
  readonly argsPerConnection: number
  /** silence before a text `ping` is sent, ms (OKX drops connections silent for 30 s). @default 25_000 */
  readonly pingAfterMs: number
  /** rubik statistics requests per minute (OKX allows 5 per 2 s). @default 60 */
  readonly statisticsPerMinute: number
}

export const DEFAULT_OKX_TUNING: OkxTuning = {
  argsPerConnection: 200,
  // keeps one request far below OKX's size limit
  subscribeBatch: 50,
  subscribeIntervalMs: 200,
  // the venue's readings are 5-minutely
  longShortEveryMs: 300_000,
  discoveryEveryMs: 3_600_000,
  queueCapacity: 100_000,
  pingAfterMs: 25_000,
  staleMs: 40_000,
  backoff: DEFAULT_BACKOFF,
  statisticsPerMinute: 60
}

export interface OkxSourceOptions {
  /** public WebSocket endpoint, e.g. wss://ws.okx.com:8443/ws/v5/public */
  readonly wsUrl: string
  readonly restUrl: string
  /** only these instruments (native ids, `BTC-USDT-SWAP`); empty: every live USDT swap */
  readonly symbols: readonly string[]
  readonly log: Logger
  /** RECORD_DIR: record raw messages there */
  readonly recordDir?: string | undefined
  readonly tuning?: Partial<OkxTuning>
}

/** REST answers repeated at the top of each recording file, so every file replays on its own. */
const isSticky = stickyPaths([INSTRUMENTS_PATH.split('?', 1)[0]!, SUPPORT_COIN_PATH])

interface Discovery {
  readonly markets: OkxMarket[]
  /** coins with long/short statistics; null when the list could not be read (then: every coin) */
  readonly statistics: Set<string> | null
}

export class OkxSource extends TickerVenueSource<Discovery, OkxArg> {
  readonly name = 'okx'
  protected readonly tuning: OkxTuning
  protected readonly rest: OkxRest
  protected readonly gaps: ReconnectFiller
  readonly normalizer: OkxNormalizer
  private longShortCoins: readonly string[] = []

  constructor(private readonly opts: OkxSourceOptions) {
    const tuning = { ...DEFAULT_OKX_TUNING, ...opts.tuning }
    super({ log: opts.log, recordDir: opts.recordDir, queueCapacity: tuning.queueCapacity, sticky: isSticky })
    this.tuning = tuning
    this.rest = new OkxRest({
      baseUrl: opts.restUrl,
      log: opts.log,
      queue: this.queue,
      statisticsPerMinute: this.tuning.statisticsPerMinute
    })
    this.gaps = this.reconnectFiller(recentTradesPath, opts.log)
    this.normalizer = new OkxNormalizer(this.gaps)
  }

  protected openConnections(signal: AbortSignal): OkxConnections {
    const t = this.tuning
    return new OkxConnections(
      { ...this.pacedConnections(this.opts.wsUrl, t.argsPerConnection), pingAfterMs: t.pingAfterMs },
      signal
    )
  }

  protected pollLongShort(signal: AbortSignal): Promise<void> {
    return pollLongShort(this.rest, () => this.longShortCoins, this.tuning.longShortEveryMs, signal)
  }

  protected override allMarketItems(): readonly OkxArg[] {
    return [LIQUIDATIONS]
  }

  protected marketsOf(found: Discovery): readonly string[] {
    return found.markets.map((m) => m.symbol)
  }

  protected itemsOf(instId: string): readonly OkxArg[] {
    return instrumentArgs(instId)
  }

  /** Long/short statistics are polled per coin: the coins of the swaps followed that OKX has statistics for. */
  protected override adopted(found: Discovery): void {
    const coins = [...new Set(found.markets.map((m) => m.base))]
    this.longShortCoins = found.statistics ? coins.filter((c) => found.statistics!.has(c)) : coins
  }

  /** Instruments (+ the coins with statistics); the swaps to follow, or null when instruments failed. */
  protected async discover(signal: AbortSignal): Promise<Discovery | null> {
    const markets = await this.fetchParsed(INSTRUMENTS_PATH, signal, usdtSwaps)
    if (markets === null) return null
    const coins = await this.rest.fetch(SUPPORT_COIN_PATH, signal)
    const statistics = coins === null ? null : statisticsCoins(coins)
    const only = this.onlyListed(
      markets,
      this.opts.symbols,
      'OKX_SYMBOLS names instruments that are not live USDT swaps'
    )
    return { markets: only, statistics }
  }
}
