/**
 * @module
 * Bitget REST within its limits. Bitget counts requests per endpoint per IP per second: the instrument
 * list 20 a second, public fills 10 a second, the accounts long/short ratio 1 a second. The instrument
 * list and fills share one public budget here, the long/short ratio has its own; we spend at most half
 * of each (a user's own tools on the same IP keep room). A 429 pauses REST (`feed/rest-client.ts`). Every
 * answer goes into the feed's RawQueue like a socket message, so it is recorded and normalized in order
 * with the stream.
 */
import type { Logger } from '../../../engine/log.js'
import { ACCOUNT_LONG_SHORT, FILLS, INSTRUMENTS } from '../../normalize/bitget.js'
import type { RawQueue } from '../feed/raw-queue.js'
import { RestClient } from '../feed/rest-client.js'
import { WeightLimiter } from '../feed/weight-limiter.js'

/** The USDT-margined perpetuals and futures (one answer, no paging). */
export const INSTRUMENTS_PATH = `${INSTRUMENTS}?category=USDT-FUTURES`

/** Accounts long/short ratio of one market, 5-minute readings. */
export const longShortPath = (symbol: string): string => `${ACCOUNT_LONG_SHORT}?symbol=${symbol}&period=5m`

/** Bitget's most rows of one public fills answer. */
export const RECENT_TRADES_LIMIT = 100
/** The newest public trades of one market (newest first), fetched after a reconnect. */
export const recentTradesPath = (symbol: string): string =>
  `${FILLS}?category=USDT-FUTURES&symbol=${symbol}&limit=${RECENT_TRADES_LIMIT}`

export interface BitgetRestOptions {
  readonly baseUrl: string
  readonly log: Logger
  readonly queue: RawQueue
  /** instrument list and fills requests per minute (Bitget: 600 fills a minute). @default 300 */
  readonly publicPerMinute?: number
  /** long/short requests per minute (Bitget: 60, as 1 a second). @default 30 */
  readonly longShortPerMinute?: number
}

export class BitgetRest {
  readonly client: RestClient
  private readonly publicData: WeightLimiter
  private readonly longShort: WeightLimiter

  constructor(private readonly opts: BitgetRestOptions) {
    this.client = new RestClient(opts.baseUrl, opts.log)
    const pub = opts.publicPerMinute ?? 300
    this.publicData = new WeightLimiter(pub, Math.max(1, pub / 60))
    const ls = opts.longShortPerMinute ?? 30
    this.longShort = new WeightLimiter(ls, 1)
  }

  /** GETs `path` and queues the answer for the normalizer; returns its text (null on failure). */
  async fetch(path: string, signal: AbortSignal): Promise<string | null> {
    const limiter = path.startsWith(ACCOUNT_LONG_SHORT) ? this.longShort : this.publicData
    return this.client.getQueued(this.opts.queue, path, 1, limiter, signal)
  }
}
