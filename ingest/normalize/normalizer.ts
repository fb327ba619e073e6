/**
 * @module
 * The contract between a venue's transport (`ingest/sources/<venue>.ts`) and its mapping
 * (`ingest/normalize/<venue>.ts`). The transport hands over every raw venue message with the channel it
 * came on and its receive time; the normalizer turns it into normalized records. Live feeds and replays
 * of recordings call the same normalizer with the same inputs, so a replay yields the same records.
 */
import type { NormalizedRecord } from '../../engine/records/types.js'

/** Channel of socket messages; REST responses use their request path with the query string. */
export const WS_CHANNEL = 'ws'

/**
 * What one message was:
 * - `ok`: mapped (possibly to no record, e.g. a mark price between funding samples)
 * - `control`: subscription acks, pongs and similar protocol chatter
 * - `unknown`: well-formed but not a message this adapter maps (counted, skipped)
 * - `malformed`: fields missing or of the wrong type (counted, skipped)
 * - `error`: the venue answered with an error object
 * - `duplicate`: a trade already seen (sequence id not above the last one)
 */
export type Outcome = 'ok' | 'control' | 'unknown' | 'malformed' | 'error' | 'duplicate'

export interface VenueNormalizer {
  /** venue name as stored in `exchange` */
  readonly venue: string
  /**
   * Trades stored without their sequence id, so outside gap detection (Binance aggTrades without `a`);
   * absent for venues whose trades carry no sequence. Shown in `/v1/health` as `unsequenced`.
   */
  readonly unsequenced?: number
  /**
   * Maps one parsed message, appending records to `out` (a caller-owned array, reused between calls so
   * the hot path allocates only the records themselves).
   */
  normalize(channel: string, msg: unknown, recvTs: number, out: NormalizedRecord[]): Outcome
  /**
   * Optional fast path for the venue's hot message, straight from the text: undefined when the text is not
   * that message in its exact shape (the caller then parses it and calls `normalize`). Whatever it accepts
   * must be valid JSON, since recordings embed it as is.
   */
  normalizeText?(channel: string, text: string, recvTs: number, out: NormalizedRecord[]): Outcome | undefined
}
