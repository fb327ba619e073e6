/**
 * @module
 * Binance USD-M REST within its limits. Two budgets: REQUEST_WEIGHT (2400 per minute per IP on
 * /fapi; we spend at most half, so a user's own bots on the same IP keep room) and the statistics
 * endpoints under /futures/data (1000 requests per 5 minutes per IP; we spend at most 150 a minute).
 * Every answer goes into the feed's RawQueue like a socket message, so it is recorded and normalized
 * in order with the stream.
 */
import type { Logger } from '../../../engine/log.js'
import type { RawQueue } from '../feed/raw-queue.js'
import { RestClient } from '../feed/rest-client.js'
import { WeightLimiter } from '../feed/weight-limiter.js'

/** Binance's REQUEST_WEIGHT limit per minute, and the header reporting what this IP used. */
const WEIGHT_LIMIT_PER_MIN = 2_400
const USED_WEIGHT_HEADER = 'x-mbx-used-weight-1m'

/** Request weights from the Binance USD-M docs. */
export const WEIGHT = {
  exchangeInfo: 1,
  fundingInfo: 1,
  openInterest: 1,
  /** aggTrades with limit up to 1000 */
  aggTrades: 20,
  /** /futures/data endpoints are counted per request in their own budget */
  statistics: 1
} as const

export interface BinanceRestOptions {
  readonly baseUrl: string
  readonly log: Logger
  readonly queue: RawQueue
  /** @default 1_200 */
  readonly weightPerMinute?: number
  /** @default 150 */
  readonly statisticsPerMinute?: number
}

export class BinanceRest {
  readonly client: RestClient
  private readonly weight: WeightLimiter
  private readonly statistics: WeightLimiter

  constructor(private readonly opts: BinanceRestOptions) {
    this.client = new RestClient(opts.baseUrl, opts.log, { name: USED_WEIGHT_HEADER, limit: WEIGHT_LIMIT_PER_MIN })
    const perMin = opts.weightPerMinute ?? 1_200
    this.weight = new WeightLimiter(perMin, Math.max(20, perMin / 10))
    const stats = opts.statisticsPerMinute ?? 150
    this.statistics = new WeightLimiter(stats, Math.max(1, stats / 10))
  }

  /**
   * GETs `path` and queues the answer for the normalizer. Returns the answer text (null on failure) for
   * callers that also need it themselves (discovery, backfill paging).
   */
  async fetch(path: string, weight: number, signal: AbortSignal): Promise<string | null> {
    const limiter = path.startsWith('/futures/data/') ? this.statistics : this.weight
    return this.client.getQueued(this.opts.queue, path, weight, limiter, signal)
  }
}
