/**
 * @module
 * Binance USD-M perpetuals (`SOURCES=binance`): the transport. Discovers USDT perpetuals that are TRADING
 * (exchangeInfo) and their funding intervals (fundingInfo), streams aggTrades per market plus mark
 * price/funding and liquidations for all markets over WebSocket, polls open interest and long/short over
 * REST, and backfills aggTrade id gaps. Everything the venue sends goes through one bounded RawQueue to
 * the normalizer (`ingest/normalize/binance.ts`) and, with RECORD_DIR, to the recorder.
 * Rediscovery runs hourly: new listings are subscribed, delisted markets are no longer polled.
 */
import type { Logger } from '../../engine/log.js'
import { BinanceNormalizer } from '../normalize/binance.js'
import { usdtPerpetuals, type MarketMeta } from '../normalize/binance-markets.js'
import { GapFiller } from './binance/backfill.js'
import { StreamConnections } from './binance/connections.js'
import { LONG_SHORT_PLAN, OPEN_INTEREST_PLAN, pollMarkets } from './binance/pollers.js'
import { BinanceRest, WEIGHT } from './binance/rest.js'
import { ALL_MARKET_STREAMS, aggTradeStream } from './binance/streams.js'
import { DEFAULT_BACKOFF, type BackoffOptions } from '../../engine/runtime/backoff.js'
import { MarketFeedSource } from './feed/market-feed-source.js'
import { stickyPaths } from './feed/venue-feed.js'

export interface BinanceTuning {
  /** streams per WebSocket connection (Binance allows 1024; fewer keeps one drop small). @default 200 */
  readonly streamsPerConnection: number
  /** streams per SUBSCRIBE message. @default 50 */
  readonly subscribeBatch: number
  /** pause between SUBSCRIBE messages, ms (Binance accepts 10 messages/s). @default 250 */
  readonly subscribeIntervalMs: number
  /** open interest poll period per market, ms. @default 60_000 */
  readonly openInterestEveryMs: number
  /** long/short poll period per market, ms (the venue's readings are 5-minutely). @default 300_000 */
  readonly longShortEveryMs: number
  /** market rediscovery period, ms. @default 3_600_000 */
  readonly discoveryEveryMs: number
  /** raw messages buffered between the sockets and the normalizer; more are dropped and counted. @default 100_000 */
  readonly queueCapacity: number
  /** a connection without any frame for this long is reopened, ms. @default 30_000 */
  readonly staleMs: number
  readonly backoff: BackoffOptions
  /** REQUEST_WEIGHT spent per minute (Binance allows 2400 per IP). @default 1_200 */
  readonly weightPerMinute: number
}

export const DEFAULT_BINANCE_TUNING: BinanceTuning = {
  streamsPerConnection: 200,
  subscribeBatch: 50,
  subscribeIntervalMs: 250,
  openInterestEveryMs: 60_000,
  longShortEveryMs: 300_000,
  discoveryEveryMs: 3_600_000,
  queueCapacity: 100_000,
  staleMs: 30_000,
  backoff: DEFAULT_BACKOFF,
  weightPerMinute: 1_200
}

export interface BinanceSourceOptions {
  /** WebSocket base; the combined stream endpoint `<base>/stream` is used */
  readonly wsUrl: string
  readonly restUrl: string
  /** only these symbols; empty: every USDT perpetual that is TRADING */
  readonly symbols: readonly string[]
  readonly log: Logger
  /** RECORD_DIR: record raw messages there */
  readonly recordDir?: string | undefined
  readonly tuning?: Partial<BinanceTuning>
}

/** REST answers repeated at the top of each recording file, so every file replays on its own. */
const isSticky = stickyPaths(['/fapi/v1/exchangeInfo', '/fapi/v1/fundingInfo'])

export class BinanceSource extends MarketFeedSource<MarketMeta[], string> {
  readonly name = 'binance'
  protected readonly tuning: BinanceTuning
  protected readonly rest: BinanceRest
  protected readonly gaps: GapFiller
  readonly normalizer: BinanceNormalizer

  constructor(private readonly opts: BinanceSourceOptions) {
    const tuning = { ...DEFAULT_BINANCE_TUNING, ...opts.tuning }
    super({ log: opts.log, recordDir: opts.recordDir, queueCapacity: tuning.queueCapacity, sticky: isSticky })
    this.tuning = tuning
    this.rest = new BinanceRest({
      baseUrl: opts.restUrl,
      log: opts.log,
      queue: this.queue,
      weightPerMinute: this.tuning.weightPerMinute
    })
    this.gaps = new GapFiller(this.rest, opts.log)
    this.normalizer = new BinanceNormalizer(this.gaps.onGap)
  }

  protected openConnections(signal: AbortSignal): StreamConnections {
    const t = this.tuning
    return new StreamConnections(
      {
        url: `${this.opts.wsUrl}/stream`,
        log: this.opts.log,
        perConnection: t.streamsPerConnection,
        pacing: { batch: t.subscribeBatch, intervalMs: t.subscribeIntervalMs },
        staleMs: t.staleMs,
        backoff: t.backoff,
        onMessage: this.wsMessage
      },
      signal
    )
  }

  /** Gap backfill, open interest and long/short polling. */
  protected tasks(signal: AbortSignal): Promise<void>[] {
    const t = this.tuning
    return [
      this.gaps.run(signal),
      pollMarkets(this.rest, () => this.markets, OPEN_INTEREST_PLAN(t.openInterestEveryMs), signal),
      pollMarkets(this.rest, () => this.markets, LONG_SHORT_PLAN(t.longShortEveryMs), signal)
    ]
  }

  /** Mark price/funding and liquidations of every market. */
  protected override allMarketItems(): readonly string[] {
    return ALL_MARKET_STREAMS
  }

  protected marketsOf(found: MarketMeta[]): readonly string[] {
    return found.map((m) => m.symbol)
  }

  protected itemsOf(symbol: string): readonly string[] {
    return [aggTradeStream(symbol)]
  }

  /** exchangeInfo + fundingInfo; the USDT perpetuals to follow, or null when either request failed. */
  protected async discover(signal: AbortSignal): Promise<MarketMeta[] | null> {
    const info = await this.rest.fetch('/fapi/v1/exchangeInfo', WEIGHT.exchangeInfo, signal)
    if (info === null) return null
    let markets: MarketMeta[] | null = null
    try {
      markets = usdtPerpetuals(JSON.parse(info))
    } catch {
      // counted as a parse error by the pump, which sees the same text
    }
    if (markets === null) return null
    if ((await this.rest.fetch('/fapi/v1/fundingInfo', WEIGHT.fundingInfo, signal)) === null) return null
    const only = this.opts.symbols
    return only.length ? markets.filter((m) => only.includes(m.symbol)) : markets
  }
}
