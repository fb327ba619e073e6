/**
 * @module
 * Bybit v5 REST within its limits. Bybit allows 600 requests per 5 seconds per IP (7,200 a minute) over
 * all of api.bybit.com and answers more with `403 access too frequent` and a ban of at least 10 minutes.
 * This adapter spends at most `requestsPerMinute` (300 by default, 1/24 of the limit, so the user's own
 * tools on the same IP keep room) and pauses all REST for 10 minutes on a 403. Public market endpoints
 * carry no used-limit header. Every answer goes into the feed's RawQueue like a socket message, so it is
 * recorded and normalized in order with the stream.
 */
import type { Logger } from '../../../engine/log.js'
import type { RawQueue } from '../feed/raw-queue.js'
import { RestClient } from '../feed/rest-client.js'
import { WeightLimiter } from '../feed/weight-limiter.js'

/** Bybit's IP ban after `403 access too frequent`: "wait for at least 10 minutes". */
export const BAN_PAUSE_MS = 600_000
/** Instruments per discovery page (Bybit's maximum; linear lists ~600 today, so one page). */
export const INSTRUMENTS_PAGE = 1_000

export interface BybitRestOptions {
  readonly baseUrl: string
  readonly log: Logger
  readonly queue: RawQueue
  /** @default 300 */
  readonly requestsPerMinute?: number
}

export class BybitRest {
  readonly client: RestClient
  private readonly limiter: WeightLimiter

  constructor(private readonly opts: BybitRestOptions) {
    this.client = new RestClient(opts.baseUrl, opts.log, undefined, [{ status: 403, pauseMs: BAN_PAUSE_MS }])
    const perMin = opts.requestsPerMinute ?? 300
    this.limiter = new WeightLimiter(perMin, Math.max(5, perMin / 10))
  }

  /**
   * GETs `path` and queues the answer for the normalizer. Returns the answer text (null on failure) for
   * callers that also need it (discovery paging).
   */
  async fetch(path: string, signal: AbortSignal): Promise<string | null> {
    return this.client.getQueued(this.opts.queue, path, 1, this.limiter, signal)
  }
}

export function instrumentsPath(cursor: string): string {
  const base = `/v5/market/instruments-info?category=linear&limit=${INSTRUMENTS_PAGE}`
  return cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base
}

/** Accounts long/short ratio of one market, the newest 5-minute reading. */
export function accountRatioPath(symbol: string): string {
  return `/v5/market/account-ratio?category=linear&symbol=${symbol}&period=5min&limit=1`
}

/** Bybit's most rows of one recent-trade answer for linear (default 500). */
export const RECENT_TRADES_LIMIT = 1_000

/** The newest public trades of one market (newest first), fetched after a reconnect. */
export function recentTradesPath(symbol: string): string {
  return `/v5/market/recent-trade?category=linear&symbol=${symbol}&limit=${RECENT_TRADES_LIMIT}`
}
