/**
 * @module
 * The `/v1/health` fields of a live venue source, from the counters every venue keeps (FeedCounters,
 * RawQueue, its connections, its gap filler if it has one, its REST client).
 */
import type { SourceStatus } from '../source.js'
import type { FeedCounters } from './feed-counters.js'
import type { RawQueue } from './raw-queue.js'

/** A set of WebSocket connections (e.g. `binance/connections.ts`). */
export interface ConnectionSet {
  readonly size: number
  /** connections open now */
  readonly open: number
  readonly reconnects: number
  readonly stale: number
}

/** The connection fields of the status. */
export interface ConnectionStatus {
  readonly connected: boolean
  readonly connections: number
  readonly reconnects: number
  readonly stale: number
}

/**
 * A connection set's status; null (before discovery ends) counts as no connections and not connected. A set
 * with no connection at all (a symbol filter that matches no listed market: warned at discovery) is
 * connected: nothing it should follow is down, and the service is not reported degraded for it.
 */
export function connectionSetStatus(conns: ConnectionSet | null): ConnectionStatus {
  return {
    connected: conns !== null && conns.open === conns.size,
    connections: conns?.size ?? 0,
    reconnects: conns?.reconnects ?? 0,
    stale: conns?.stale ?? 0
  }
}

export interface FeedStatusParts {
  readonly name: string
  readonly phase: string
  readonly counters: FeedCounters
  readonly queue: RawQueue
  /** markets (or instruments) followed */
  readonly markets: number
  readonly connections: ConnectionStatus
  /** trade sequence gaps; absent for a venue without gap detection (reported as 0) */
  readonly gaps?: { readonly found: number; readonly filled: number; readonly unfilled: number }
  /** trades stored outside gap detection (VenueNormalizer.unsequenced); absent for venues without sequence ids */
  readonly unsequenced?: number | undefined
  readonly rest: { readonly errors: number; readonly rateLimited: number }
}

export function feedStatus(p: FeedStatusParts): SourceStatus {
  const c = p.counters
  return {
    name: p.name,
    synthetic: false,
    connected: p.connections.connected,
    last_event_ts: c.lastEventTs,
    rows: c.rows,
    phase: p.phase,
    last_message_ts: c.lastMessageTs,
    markets: p.markets,
    connections: p.connections.connections,
    reconnects: p.connections.reconnects,
    stale: p.connections.stale,
    messages: c.messages,
    parse_errors: c.parseErrors + c.malformed,
    unknown_messages: c.unknown,
    venue_errors: c.venueErrors,
    duplicates: c.duplicates,
    dropped: p.queue.dropped,
    gaps_found: p.gaps?.found ?? 0,
    gaps_filled: p.gaps?.filled ?? 0,
    gaps_unfilled: p.gaps?.unfilled ?? 0,
    ...(p.unsequenced === undefined ? {} : { unsequenced: p.unsequenced }),
    rest_errors: p.rest.errors,
    rate_limited: p.rest.rateLimited
  }
}
