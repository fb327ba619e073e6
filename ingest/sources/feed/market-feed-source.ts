/**
 * @module
 * A venue source that follows a market list over WebSocket connections (Binance, Bybit, OKX): discovery
 * retried with backoff, the connections subscribed to every market's items (plus the venue's all-market
 * items), the venue's background tasks (pollers, gap fills) and scheduled rediscovery, which subscribes new
 * listings and stops polling delisted markets. The venue supplies what differs: how it discovers, its
 * connection set, the items of one market, and its tasks.
 */
import { RECONNECT_CHANNEL, reconnectMarker } from '../../normalize/trade-window.js'
import { WS_CHANNEL } from '../../normalize/normalizer.js'
import type { BackoffOptions } from '../../../engine/runtime/backoff.js'
import { discoverWithBackoff, rediscoverLoop } from './discovery.js'
import { connectionSetStatus, type ConnectionSet } from './feed-status.js'
import type { ConnectionsBase } from './venue-connections.js'
import { VenueSource, type VenueHealth } from './venue-source.js'
import type { Logger } from '../../../engine/log.js'

/** A venue's connection set (`feed-connections.ts`): items are added once, resubscribed on every open. */
export interface MarketConnections<Item> extends ConnectionSet {
  add(items: readonly Item[]): void
  /** resolves when every connection has closed for good */
  done(): Promise<void>
}

/** Counters of a venue's trade gap detection (a gap filler or a reconnect filler). */
interface GapCounts {
  readonly found: number
  readonly filled: number
  readonly unfilled: number
}

export abstract class MarketFeedSource<Found, Item> extends VenueSource {
  /** markets followed, venue-native names, from the latest discovery */
  protected markets: readonly string[] = []
  protected connections: MarketConnections<Item> | null = null
  protected abstract readonly tuning: { readonly backoff: BackoffOptions; readonly discoveryEveryMs: number }
  protected abstract readonly gaps: GapCounts
  protected abstract readonly rest: { readonly client: { readonly errors: number; readonly rateLimited: number } }

  /** The venue's market list (filtered by its SYMBOLS setting); null when a request failed (never throws). */
  protected abstract discover(signal: AbortSignal): Promise<Found | null>
  /** Market names of a discovered list. */
  protected abstract marketsOf(found: Found): readonly string[]
  /** Subscriptions of one market. */
  protected abstract itemsOf(market: string): readonly Item[]
  /** The venue's connection set; its sockets push into `queue` (`wsMessage`, `reopened`). */
  protected abstract openConnections(signal: AbortSignal): MarketConnections<Item>
  /** Pollers and gap fills that run beside the connections until `signal` aborts. */
  protected abstract tasks(signal: AbortSignal): Promise<void>[]

  /** Subscriptions that cover every market, made once at start (e.g. all-market liquidation streams). */
  protected allMarketItems(): readonly Item[] {
    return []
  }

  /** Called with every adopted list (first and rediscovered), after `markets` is set. */
  protected adopted(_found: Found): void {}

  /** A socket message, queued for the normalizer. */
  protected readonly wsMessage = (text: string, recvTs: number): void => {
    this.queue.push({ channel: WS_CHANNEL, text, recvTs })
  }

  /** A connection reopened: its markets' reconnect windows are marked in the queue (`feed/reconnect-fill.ts`). */
  protected readonly reopened = (markets: readonly string[]): void => {
    this.queue.push({ channel: RECONNECT_CHANNEL, text: reconnectMarker(markets), recvTs: Date.now() })
  }

  /**
   * What a venue's connection set is built from besides its protocol (feed/venue-connections.ts): the
   * endpoint, the log, items per connection, the stale bound, this source's backoff and handlers.
   */
  protected connectionsBase(url: string, log: Logger, perConnection: number, staleMs: number): ConnectionsBase {
    return {
      url,
      log,
      perConnection,
      staleMs,
      backoff: this.tuning.backoff,
      onMessage: this.wsMessage,
      onReopen: this.reopened
    }
  }

  protected health(): VenueHealth {
    return {
      markets: this.markets.length,
      connections: connectionSetStatus(this.connections),
      gaps: { found: this.gaps.found, filled: this.gaps.filled, unfilled: this.gaps.unfilled },
      rest: { errors: this.rest.client.errors, rateLimited: this.rest.client.rateLimited }
    }
  }

  /** Discovery, then sockets, the venue's tasks and rediscovery until `signal` aborts. */
  protected async runTransport(signal: AbortSignal): Promise<void> {
    this.phase = 'discovery'
    const found = await discoverWithBackoff((s) => this.discover(s), this.tuning.backoff, signal)
    if (found === null) return
    const connections = this.openConnections(signal)
    this.connections = connections
    this.adopt(connections, found, true)
    this.phase = 'live'
    this.log.info({ markets: this.markets.length, connections: connections.size }, `${this.name} feed started`)
    await Promise.all([
      connections.done(),
      ...this.tasks(signal),
      rediscoverLoop(
        () => this.tuning.discoveryEveryMs,
        (s) => this.discover(s),
        (next) => this.adopt(connections, next, false),
        signal
      )
    ])
  }

  /** The first list subscribes everything; a rediscovered one subscribes new listings only. */
  private adopt(connections: MarketConnections<Item>, found: Found, first: boolean): void {
    const known = new Set(this.markets)
    const next = this.marketsOf(found)
    const added = first ? next : next.filter((m) => !known.has(m))
    this.markets = next
    this.adopted(found)
    const items = [...(first ? this.allMarketItems() : []), ...added.flatMap((m) => this.itemsOf(m))]
    if (items.length) connections.add(items)
    if (!first && added.length) this.log.info({ added }, `${this.name} markets listed`)
  }
}
