/**
 * @module
 * The transport the topic venues (Bybit, OKX, Bitget) share over MarketFeedSource: trade ids reveal no
 * gaps there, so every reopened connection opens reconnect windows whose missed trades are fetched over
 * the venue's REST client (`reconnect-fill.ts`), and the venue's long/short poller runs beside them. The
 * venue supplies its REST client, its recent-trades request and its poller; the base also builds what every
 * topic venue's connections and discovery do alike (paced subscriptions, a parsed REST answer, the markets
 * `<VENUE>_SYMBOLS` keeps).
 */
import type { Logger } from '../../../engine/log.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { MarketFeedSource } from './market-feed-source.js'
import type { SubscribePacing } from './paced-subscribe.js'
import { ReconnectFiller } from './reconnect-fill.js'
import type { ConnectionsBase } from './venue-connections.js'

/** What the base needs of a venue's REST client. */
export interface VenueRestClient {
  /** GETs a path (limiter, raw queue); the answer text or null on failure */
  fetch(path: string, signal: AbortSignal): Promise<string | null>
  readonly client: { readonly errors: number; readonly rateLimited: number }
}

/** The tuning every topic venue has; its keepalive, items per connection and REST rates are its own. */
export interface TopicVenueTuning {
  /** items (topics, args) per subscribe message */
  readonly subscribeBatch: number
  /** pause between subscribe messages on one connection, ms */
  readonly subscribeIntervalMs: number
  /** long/short poll period per market (OKX: per coin), ms */
  readonly longShortEveryMs: number
  /** market rediscovery period, ms */
  readonly discoveryEveryMs: number
  /** raw messages buffered between the sockets and the normalizer; more are dropped and counted */
  readonly queueCapacity: number
  /** a connection without any frame for this long (pongs included) is reopened, ms */
  readonly staleMs: number
  readonly backoff: BackoffOptions
}

export abstract class TickerVenueSource<Found, Item> extends MarketFeedSource<Found, Item> {
  protected abstract override readonly tuning: TopicVenueTuning
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

  /** The options of this source's connections: the base's with at most `perConnection` items, paced subscribes. */
  protected pacedConnections(
    url: string,
    perConnection: number
  ): ConnectionsBase & { readonly pacing: SubscribePacing } {
    const t = this.tuning
    return {
      ...this.connectionsBase(url, this.log, perConnection, t.staleMs),
      pacing: { batch: t.subscribeBatch, intervalMs: t.subscribeIntervalMs }
    }
  }

  /**
   * The answer to `path` read by `parse`; null when the request failed or the answer is not what `parse`
   * reads (the pump counts that parse error: it sees the same text).
   */
  protected async fetchParsed<T>(
    path: string,
    signal: AbortSignal,
    parse: (json: unknown) => T | null
  ): Promise<T | null> {
    const text = await this.rest.fetch(path, signal)
    if (text === null) return null
    try {
      return parse(JSON.parse(text))
    } catch {
      return null
    }
  }

  /** The markets among `found` that `only` names (all when it is empty); the names it lists that are not there are logged with `warning`. */
  protected onlyListed<M extends { readonly symbol: string }>(
    found: M[],
    only: readonly string[],
    warning: string
  ): M[] {
    if (only.length === 0) return found
    const missing = only.filter((s) => !found.some((m) => m.symbol === s))
    if (missing.length) this.log.warn({ missing }, warning)
    return found.filter((m) => only.includes(m.symbol))
  }
}
