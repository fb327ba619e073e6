/**
 * @module
 * Counters of one venue feed, shared by live sources and replays, and their `/v1/health` fields.
 */
import type { Outcome } from '../../normalize/normalizer.js'

export class FeedCounters {
  /** messages taken from the socket/REST queue or the recording */
  messages = 0
  /** not JSON */
  parseErrors = 0
  /** JSON with missing or mistyped fields */
  malformed = 0
  /** well-formed messages this adapter does not map */
  unknown = 0
  /** error answers from the venue */
  venueErrors = 0
  /** trades skipped as already seen */
  duplicates = 0
  /** normalized records handed to the pipeline */
  rows = 0
  /** newest exchange time among those records, epoch ms */
  lastEventTs: number | null = null
  /** receive time of the newest message, epoch ms */
  lastMessageTs: number | null = null

  count(outcome: Outcome): void {
    switch (outcome) {
      case 'malformed':
        this.malformed++
        break
      case 'unknown':
        this.unknown++
        break
      case 'error':
        this.venueErrors++
        break
      case 'duplicate':
        this.duplicates++
        break
    }
  }
}
