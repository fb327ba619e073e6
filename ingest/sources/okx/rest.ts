/**
 * @module
 * OKX v5 REST within its limits. OKX counts requests per endpoint per IP over 2 s windows: public
 * instruments 20 per 2 s, market trades 100 per 2 s, the rubik trading-statistics endpoints 5 per 2 s.
 * Instruments and trades share one public budget here. We spend at most half of each
 * (a user's own tools on the same IP keep room). A 429 (OKX code 50011) pauses the endpoint's budget.
 * Every answer goes into the feed's RawQueue like a socket message, so it is recorded and normalized in
 * order with the stream.
 */
import type { Logger } from '../../../engine/log.js'
import type { RawQueue } from '../feed/raw-queue.js'
import { RestClient } from '../feed/rest-client.js'
import { WeightLimiter } from '../feed/weight-limiter.js'

export const INSTRUMENTS_PATH = '/api/v5/public/instruments?instType=SWAP'
export const SUPPORT_COIN_PATH = '/api/v5/rubik/stat/trading-data/support-coin'
/** Accounts long/short ratio of one coin, 5-minute readings, newest first. */
export const longShortPath = (ccy: string): string =>
  `/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=${ccy}&period=5m`

/** OKX's most rows of one trades answer (default 100). */
export const RECENT_TRADES_LIMIT = 500
/** The newest public trades of one instrument (newest first), fetched after a reconnect. */
export const recentTradesPath = (instId: string): string =>
  `/api/v5/market/trades?instId=${instId}&limit=${RECENT_TRADES_LIMIT}`

export interface OkxRestOptions {
  readonly baseUrl: string
  readonly log: Logger
  readonly queue: RawQueue
  /** public-data requests per minute (OKX: 600, as 20 per 2 s). @default 300 */
  readonly publicPerMinute?: number
  /** rubik statistics requests per minute (OKX: 150, as 5 per 2 s). @default 60 */
  readonly statisticsPerMinute?: number
}

export class OkxRest {
  readonly client: RestClient
  private readonly publicData: WeightLimiter
  private readonly statistics: WeightLimiter

  constructor(private readonly opts: OkxRestOptions) {
    this.client = new RestClient(opts.baseUrl, opts.log)
    const pub = opts.publicPerMinute ?? 300
    this.publicData = new WeightLimiter(pub, Math.max(1, pub / 60))
    const stats = opts.statisticsPerMinute ?? 60
    this.statistics = new WeightLimiter(stats, Math.max(1, stats / 60))
  }

  /** GETs `path` and queues the answer for the normalizer; returns its text (null on failure). */
  async fetch(path: string, signal: AbortSignal): Promise<string | null> {
    const limiter = path.startsWith('/api/v5/rubik/') ? this.statistics : this.publicData
    return this.client.getQueued(this.opts.queue, path, 1, limiter, signal)
  }
}
