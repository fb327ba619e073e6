/**
 * @module
 * The consumer side of a live venue feed: takes raw messages from the bounded RawQueue, parses them,
 * records them (RECORD_DIR), normalizes them with the venue's normalizer and hands the records to the
 * pipeline as encoded chunks plus live records as soon as the queue is drained, or every CHUNK_RECORDS
 * records while it is not. A live record waits for nothing but the messages queued with it: under load
 * they queue while the pump works, so chunks grow with the rate and stay one per drain when it is quiet
 * (the table batcher gathers chunks into inserts on its own timer, INGEST_FLUSH_MS). A message that
 * fails anywhere is counted and skipped; the pump never throws on venue data.
 */
import { livePath } from '../../../engine/live/path-probe.js'
import type { NormalizedRecord } from '../../../engine/records/types.js'
import { encodeRecords } from '../../encode-records.js'
import type { IngestItem } from '../../encoded-chunk.js'
import type { VenueNormalizer } from '../../normalize/normalizer.js'
import type { Recorder } from '../../record/recorder.js'
import type { FeedCounters } from './feed-counters.js'
import type { RawQueue } from './raw-queue.js'

/** Records per chunk: big enough to keep encoding cheap, small enough to keep live latency low. */
export const CHUNK_RECORDS = 5_000
/**
 * Longest a normalized record waits before it is handed on, ms, where records are not handed on at once
 * (a replay at recorded pace gathers records between its waits).
 */
export const FLUSH_MS = 250

export interface FeedPumpOptions {
  readonly normalizer: VenueNormalizer
  readonly queue: RawQueue
  readonly counters: FeedCounters
  readonly recorder?: Recorder | undefined
  /** channels whose messages are repeated at the top of each recording file (market lists) */
  readonly sticky?: (channel: string) => boolean
}

/**
 * Turns a batch of records into pipeline items: one chunk per table, then the records for the live state.
 * `bulk` (a replay as fast as possible) lets the batcher fill its larger bulk batches.
 */
export function recordItems(
  records: NormalizedRecord[],
  counters: FeedCounters,
  bulk = false,
  recvTs?: number
): IngestItem[] {
  let maxTs = counters.lastEventTs ?? 0
  for (let i = 0; i < records.length; i++) if (records[i]!.ts > maxTs) maxTs = records[i]!.ts
  counters.rows += records.length
  counters.lastEventTs = maxTs
  return [
    ...encodeRecords(records, bulk),
    recvTs === undefined ? { live: true, records } : { live: true, records, recvTs }
  ]
}

/** How one message text went: the venue's fast path took it, it was parsed as JSON, or it was not JSON. */
export type TextOutcome = 'fast' | 'parsed' | 'junk'

/**
 * One message text through the normalizer, for the live pump and replays alike: the venue's fast path
 * first, else `JSON.parse` then `normalize`. Counts into `counters` and never throws: a normalizer bug on
 * odd input counts as malformed and must not stop the feed.
 */
export function normalizeMessage(
  normalizer: VenueNormalizer,
  channel: string,
  text: string,
  recvTs: number,
  out: NormalizedRecord[],
  counters: FeedCounters
): TextOutcome {
  let fastFailed = false
  try {
    const fast = normalizer.normalizeText?.(channel, text, recvTs, out)
    if (fast !== undefined) {
      counters.count(fast)
      return 'fast'
    }
  } catch {
    fastFailed = true
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    counters.parseErrors++
    return 'junk'
  }
  if (fastFailed) {
    counters.malformed++
    return 'parsed'
  }
  try {
    counters.count(normalizer.normalize(channel, parsed, recvTs, out))
  } catch {
    counters.malformed++
  }
  return 'parsed'
}

/** Runs until `signal` aborts and the queue is empty. */
export async function* pumpFeed(opts: FeedPumpOptions, signal: AbortSignal): AsyncIterable<IngestItem> {
  const { normalizer, queue, counters, recorder } = opts
  const venue = normalizer.venue
  let out: NormalizedRecord[] = []
  /** receive time of the oldest message behind `out`, epoch ms */
  let oldest: number | undefined
  for (;;) {
    if (signal.aborted && queue.length === 0) break
    await queue.wait(signal)
    for (let msg = queue.shift(); msg !== undefined; msg = queue.shift()) {
      counters.messages++
      counters.lastMessageTs = msg.recvTs
      livePath.mark('dequeued', msg.recvTs)
      oldest ??= msg.recvTs
      const how = normalizeMessage(normalizer, msg.channel, msg.text, msg.recvTs, out, counters)
      if (how === 'junk') recorder?.writeText(venue, msg.channel, msg.text, msg.recvTs)
      else if (how === 'fast') recorder?.write(venue, msg.channel, msg.text, msg.recvTs)
      else recorder?.write(venue, msg.channel, msg.text, msg.recvTs, opts.sticky?.(msg.channel) ?? false)
      if (out.length >= CHUNK_RECORDS) break
    }
    // the queue is drained (or a chunk is full): hand on what it held
    if (out.length > 0) {
      const records = out
      const recvTs = oldest
      out = []
      oldest = undefined
      livePath.mark('normalized', recvTs)
      yield* recordItems(records, counters, false, recvTs)
    } else oldest = undefined
  }
}
