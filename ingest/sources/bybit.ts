/**
 * @module
 * Bybit v5 linear perpetuals (`SOURCES=bybit`): the transport. Discovers USDT perpetuals that are Trading
 * (instruments-info, cursor paging), streams trades, tickers (funding, mark/index, open interest) and
 * liquidations per market over the public linear WebSocket with Bybit's app-level ping, and polls the
 * accounts long/short ratio over REST. Everything the venue sends goes through one bounded RawQueue to the
 * normalizer (`ingest/normalize/bybit.ts`) and, with RECORD_DIR, to the recorder. Rediscovery runs hourly:
 * new listings are subscribed, delisted markets are no longer polled. Trade ids are UUIDs and the tickers'
 * cross sequence `cs` is not contiguous, so ids reveal no gaps; instead every reopened connection is
 * marked in the raw queue and the recent trades of its markets are fetched (`feed/reconnect-fill.ts`,
 * docs/sources.md).
 */
import type { Logger } from '../../engine/log.js'
import { BybitNormalizer } from '../normalize/bybit.js'
import { instrumentsPage, type BybitMarket } from '../normalize/bybit-markets.js'
import { TopicConnections } from './bybit/connections.js'
import { pollLongShort } from './bybit/pollers.js'
import { BybitRest, instrumentsPath, recentTradesPath } from './bybit/rest.js'
import { marketTopics } from './bybit/topics.js'
import { DEFAULT_BACKOFF } from '../../engine/runtime/backoff.js'
import { TickerVenueSource, type TopicVenueTuning } from './feed/ticker-venue-source.js'
import { ReconnectFiller } from './feed/reconnect-fill.js'
import { stickyPaths } from './feed/venue-feed.js'

/** Most instruments-info pages read in one discovery (1,000 instruments each): a runaway cursor stops here. */
const MAX_PAGES = 10

export interface BybitTuning extends TopicVenueTuning {
  /** topics per WebSocket connection (3 per market; Bybit limits args to 21,000 characters). @default 200 */
  readonly topicsPerConnection: number
  /** app-level `{"op":"ping"}` period, ms (Bybit recommends 20 s). @default 20_000 */
  readonly pingMs: number
  /** REST requests per minute (Bybit allows 7,200 per IP). @default 300 */
  readonly requestsPerMinute: number
}

export const DEFAULT_BYBIT_TUNING: BybitTuning = {
  topicsPerConnection: 200,
  // Bybit: no limit on linear, 10 on spot
  subscribeBatch: 10,
  subscribeIntervalMs: 100,
  pingMs: 20_000,
  // the venue's readings are 5-minutely
  longShortEveryMs: 300_000,
  discoveryEveryMs: 3_600_000,
  queueCapacity: 100_000,
  staleMs: 30_000,
  backoff: DEFAULT_BACKOFF,
  requestsPerMinute: 300
}

export interface BybitSourceOptions {
  /** public linear WebSocket endpoint, e.g. wss://stream.bybit.com/v5/public/linear */
  readonly wsUrl: string
  readonly restUrl: string
  /** only these symbols; empty: every USDT perpetual that is Trading */
  readonly symbols: readonly string[]
  readonly log: Logger
  /** RECORD_DIR: record raw messages there */
  readonly recordDir?: string | undefined
  readonly tuning?: Partial<BybitTuning>
}

/** REST answers repeated at the top of each recording file, so every file replays on its own. */
const isSticky = stickyPaths(['/v5/market/instruments-info'])

export class BybitSource extends TickerVenueSource<BybitMarket[], string> {
  readonly name = 'bybit'
  protected readonly tuning: BybitTuning
  protected readonly rest: BybitRest
  protected readonly gaps: ReconnectFiller
  readonly normalizer: BybitNormalizer

  constructor(private readonly opts: BybitSourceOptions) {
    const tuning = { ...DEFAULT_BYBIT_TUNING, ...opts.tuning }
    super({ log: opts.log, recordDir: opts.recordDir, queueCapacity: tuning.queueCapacity, sticky: isSticky })
    this.tuning = tuning
    this.rest = new BybitRest({
      baseUrl: opts.restUrl,
      log: opts.log,
      queue: this.queue,
      requestsPerMinute: this.tuning.requestsPerMinute
    })
    this.gaps = this.reconnectFiller(recentTradesPath, opts.log)
    this.normalizer = new BybitNormalizer(this.gaps)
  }

  protected openConnections(signal: AbortSignal): TopicConnections {
    const t = this.tuning
    return new TopicConnections(
      { ...this.pacedConnections(this.opts.wsUrl, t.topicsPerConnection), pingMs: t.pingMs },
      signal
    )
  }

  protected pollLongShort(signal: AbortSignal): Promise<void> {
    return pollLongShort(this.rest, () => this.markets, this.tuning.longShortEveryMs, signal)
  }

  protected marketsOf(found: BybitMarket[]): readonly string[] {
    return found.map((m) => m.symbol)
  }

  protected itemsOf(symbol: string): readonly string[] {
    return marketTopics(symbol)
  }

  /** Every instruments-info page; the USDT perpetuals to follow, or null when a request failed. */
  protected async discover(signal: AbortSignal): Promise<BybitMarket[] | null> {
    const markets: BybitMarket[] = []
    let cursor = ''
    for (let page = 0; page < MAX_PAGES; page++) {
      const parsed = await this.fetchParsed(instrumentsPath(cursor), signal, instrumentsPage)
      if (parsed === null) return null
      markets.push(...parsed.markets)
      cursor = parsed.nextCursor
      if (cursor === '') break
    }
    return this.onlyListed(
      markets,
      this.opts.symbols,
      'BYBIT_SYMBOLS names markets that are not trading USDT perpetuals'
    )
  }
}
