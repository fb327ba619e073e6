/**
 * @module
 * The source contract. A source is an async iterable of ingest items (encoded chunks of normalized records
 * and barriers), plus a status for `/v1/health`. Record-level sources encode with `encodeRecords` (the
 * exchange feeds on the main thread); the demo market generates and encodes in a worker thread.
 */
import type { IngestItem } from '../encoded-chunk.js'

export interface SourceStatus {
  readonly name: string
  /** true for the demo market: its data is invented */
  readonly synthetic: boolean
  readonly connected: boolean
  /** newest record time seen, epoch ms */
  readonly last_event_ts: number | null
  /** rows handed to the pipeline */
  readonly rows: number
  /** current phase, e.g. backfill or live */
  readonly phase?: string
  // Venue feeds (live and replay) add the fields below; all optional so other sources need not.
  /** receive time of the newest raw venue message, epoch ms */
  readonly last_message_ts?: number | null
  /** markets followed */
  readonly markets?: number
  /** WebSocket connections of the feed */
  readonly connections?: number
  /** connections reopened after a drop, a failure or a stale spell */
  readonly reconnects?: number
  /** connections reopened because nothing arrived for the stale limit */
  readonly stale?: number
  /** raw messages taken from the socket, REST or a recording */
  readonly messages?: number
  /** messages that were not JSON or missed required fields (counted and skipped) */
  readonly parse_errors?: number
  /** well-formed messages the adapter does not map (counted and skipped) */
  readonly unknown_messages?: number
  /** error answers from the venue */
  readonly venue_errors?: number
  /** trades skipped as already seen */
  readonly duplicates?: number
  /** messages dropped because the bounded queue before the normalizer was full */
  readonly dropped?: number
  /** trade sequence gaps detected */
  readonly gaps_found?: number
  /** gaps filled completely from REST */
  readonly gaps_filled?: number
  /** gaps left open (too large, too many, REST failed; in a replay: every gap) */
  readonly gaps_unfilled?: number
  /** trades stored without their sequence id (Binance aggTrades without `a`), so outside gap detection */
  readonly unsequenced?: number
  /** failed REST requests */
  readonly rest_errors?: number
  /** REST answers 429/418 (rate limited) */
  readonly rate_limited?: number
}

export interface Source {
  readonly name: string
  readonly synthetic: boolean
  items(signal: AbortSignal): AsyncIterable<IngestItem>
  status(): SourceStatus
  /**
   * What the source still has to do before its data can be served (e.g. the demo market's first
   * backfill), in words; null or absent once done. The service answers `503 warming_up` until every
   * source is done (server/readiness.ts).
   */
  warmingUp?(): string | null
}
