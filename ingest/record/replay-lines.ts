/**
 * @module
 * The per-line work of a replay, shared by the in-thread path and the replay worker thread
 * (ingest/workers/replay-worker.ts) so both turn a recording into the same records: read a line's head
 * (socket lines by hand, others parsed whole), count it, and run its venue's normalizer (one instance per
 * venue per replay, so trade dedup and gap detection see the whole recording in order).
 */
import type { NormalizedRecord } from '../../engine/records/types.js'
import { FeedCounters } from '../sources/feed/feed-counters.js'
import { normalizeMessage } from '../sources/feed/feed-pump.js'
import { WS_CHANNEL, type VenueNormalizer } from '../normalize/normalizer.js'
import { readWsLine, type RecordedLine, type WsLineHead } from './recording-format.js'
import { REPLAY_NORMALIZERS as NORMALIZERS } from './replay-normalizers.js'

/** Counters of a replay as `/v1/health` shows them; plain data, so a worker can post it. */
export interface ReplayCounts {
  readonly messages: number
  readonly parseErrors: number
  readonly malformed: number
  readonly unknown: number
  readonly venueErrors: number
  readonly duplicates: number
  /** records handed on */
  readonly rows: number
  /** newest exchange time among those records, epoch ms */
  readonly lastEventTs: number | null
  /** receive time of the newest line, epoch ms */
  readonly lastMessageTs: number | null
  readonly gapsFound: number
  readonly unsequenced: number
}

export class ReplayLines {
  readonly counters = new FeedCounters()
  gapsFound = 0
  private readonly normalizers = new Map<string, VenueNormalizer>()
  private readonly head: WsLineHead = { t: 0, v: '', body: '' }
  /** the line last read when it was not a socket line (parsed whole), else null */
  private line: RecordedLine | null = null

  /**
   * Reads the head of one line and counts it as a message; returns its receive time (epoch ms), or NaN
   * for an empty line (skipped) or one that is not JSON (counted as a parse error).
   */
  read(text: string): number {
    if (text.length === 0) return Number.NaN
    const c = this.counters
    this.line = null
    if (!readWsLine(text, this.head)) {
      try {
        this.line = JSON.parse(text) as RecordedLine
      } catch {
        c.parseErrors++
        return Number.NaN
      }
    }
    const t = this.line === null ? this.head.t : this.line.t
    c.messages++
    c.lastMessageTs = t
    return t
  }

  /** Normalizes the line `read` last accepted, appending its records to `out`; never throws. */
  normalize(out: NormalizedRecord[]): void {
    const c = this.counters
    const line = this.line
    const normalizer = this.normalizer(line === null ? this.head.v : line.v)
    if (normalizer === undefined) {
      c.unknown++
      return
    }
    try {
      if (line !== null) {
        if (line.x !== undefined)
          c.parseErrors++ // the live feed received text that was not JSON
        else c.count(normalizer.normalize(line.c, line.m, line.t, out))
        return
      }
      normalizeMessage(normalizer, WS_CHANNEL, this.head.body, this.head.t, out, c)
    } catch {
      c.malformed++ // a normalizer bug on odd input must not stop the replay
    }
  }

  /**
   * Counts rows handed on without their records (the byte-level path): `rows` rows whose newest exchange
   * time is `maxTs` (epoch ms; -Infinity for none), as `recordItems` (feed-pump.ts) counts records.
   */
  handedRows(rows: number, maxTs: number): void {
    const c = this.counters
    c.rows += rows
    c.lastEventTs = Math.max(c.lastEventTs ?? 0, maxTs)
  }

  /** The normalizer of `venue` this replay uses (made on first use), undefined for a venue it does not know. */
  venueNormalizer(venue: string): VenueNormalizer | undefined {
    return this.normalizer(venue)
  }

  get unsequenced(): number {
    let n = 0
    for (const v of this.normalizers.values()) n += v.unsequenced ?? 0
    return n
  }

  counts(): ReplayCounts {
    const c = this.counters
    return {
      messages: c.messages,
      parseErrors: c.parseErrors,
      malformed: c.malformed,
      unknown: c.unknown,
      venueErrors: c.venueErrors,
      duplicates: c.duplicates,
      rows: c.rows,
      lastEventTs: c.lastEventTs,
      lastMessageTs: c.lastMessageTs,
      gapsFound: this.gapsFound,
      unsequenced: this.unsequenced
    }
  }

  private normalizer(venue: string): VenueNormalizer | undefined {
    let n = this.normalizers.get(venue)
    if (n === undefined) {
      const make = NORMALIZERS.get(venue)
      if (make === undefined) return undefined
      this.normalizers.set(venue, (n = make(() => this.gapsFound++)))
    }
    return n
  }
}
