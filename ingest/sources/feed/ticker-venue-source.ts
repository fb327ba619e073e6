/**
 * @module
 * The transport the topic venues (Bybit, OKX, Bitget) share over MarketFeedSource: trade ids reveal no
 * gaps there, so every reopened connection opens reconnect windows whose missed trades are fetched over
 * the venue's REST client (`reconnect-fill.ts`), and the venue's long/short poller runs beside them. The
 * venue supplies its REST client, its recent-trades request and its poller.
 */
import type { Logger } from '../../../engine/log.js'
import { MarketFeedSource } from './market-feed-source.js'
import { ReconnectFiller } from './reconnect-fill.js'

/** What the base needs of a venue's REST client. */
export interface VenueRestClient {
  /** GETs a path (limiter, raw queue); the answer text or null on failure */
  fetch(path: string, signal: AbortSignal): Promise<string | null>
  readonly client: { readonly errors: number; readonly rateLimited: number }
}

export abstract class TickerVenueSource<Found, Item> extends MarketFeedSource<Found, Item> {
  protected abstract override readonly rest: VenueRestClient
  // reconnect windows: trade ids reveal no gaps, reopened connections are checked instead
  protected abstract override readonly gaps: ReconnectFiller

  /** The venue's long/short poller, until `signal` aborts. */
  protected abstract pollLongShort(signal: AbortSignal): Promise<void>

  /** The filler of this source's reconnect windows; `path` is the venue's recent-trades request of a market. */
  protected reconnectFiller(path: (symbol: string) => string, log: Logger): ReconnectFiller {
    return new ReconnectFiller({ venue: this.name, fetch: (p, signal) => this.rest.fetch(p, signal), path, log })
  }

  protected tasks(signal: AbortSignal): Promise<void>[] {
    return [this.gaps.run(signal), this.pollLongShort(signal)]
  }
}
