/**
 * @module
 * `SOURCES=replay:<file or dir>`: replays recordings (RECORD_DIR) through the same venue normalizers as
 * the live feeds, so the records are the ones the live feed produced. REPLAY_SPEED paces it: 1 = at the
 * recorded pace (receive times), 10 = ten times faster, 0 (`max`) = as fast as the pipeline takes it.
 * Records keep their exchange timestamps. Gaps in the recorded trade ids (Binance) and reconnect windows
 * (Bybit, OKX markers) are counted, not filled (the fills the live feed fetched are in the recording and
 * replay like any REST answer). The source ends
 * when the recording does (phase `done`).
 */
import path from 'node:path'
import type { Logger } from '../../engine/log.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import type { IngestItem } from '../encoded-chunk.js'
import { WS_CHANNEL, type VenueNormalizer } from '../normalize/normalizer.js'
import { readWsLine, type RecordedLine, type WsLineHead } from '../record/recording-format.js'
import { recordedLines, recordingFiles } from '../record/replay-reader.js'
import { sleep } from './feed/backoff.js'
import { FeedCounters } from './feed/feed-counters.js'
import { CHUNK_RECORDS, FLUSH_MS, normalizeMessage, recordItems } from './feed/feed-pump.js'
import type { Source, SourceStatus } from './source.js'
import { VENUES } from './venues.js'

/** Waits shorter than this are not slept (the timer would overshoot them anyway), ms. */
const MIN_WAIT_MS = 2

export interface ReplaySourceOptions {
  /** a recording file or a directory of them */
  readonly path: string
  /** 1 = recorded pace, 0 = as fast as possible */
  readonly speed: number
  readonly log: Logger
}

/** The normalizer of each venue a recording may hold, from the venue registry (one instance per replay). */
const NORMALIZERS: ReadonlyMap<string, (onGap: () => void) => VenueNormalizer> = new Map(
  VENUES.map((v) => [v.name, v.replayNormalizer])
)

export class ReplaySource implements Source {
  readonly name: string
  readonly synthetic = false
  private readonly counters = new FeedCounters()
  private readonly normalizers = new Map<string, VenueNormalizer>()
  private phase = 'starting'
  private replaying = false
  private gapsFound = 0
  private truncated = 0

  constructor(private readonly opts: ReplaySourceOptions) {
    this.name = `replay:${path.basename(opts.path)}`
  }

  status(): SourceStatus {
    const c = this.counters
    return {
      name: this.name,
      synthetic: false,
      connected: this.replaying,
      last_event_ts: c.lastEventTs,
      rows: c.rows,
      phase: this.phase,
      last_message_ts: c.lastMessageTs,
      messages: c.messages,
      parse_errors: c.parseErrors + c.malformed + this.truncated,
      unknown_messages: c.unknown,
      venue_errors: c.venueErrors,
      duplicates: c.duplicates,
      gaps_found: this.gapsFound,
      unsequenced: [...this.normalizers.values()].reduce((n, v) => n + (v.unsequenced ?? 0), 0)
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

  /** Normalizes one line: a socket line from `head` (fast path first) or a parsed `line`. */
  private normalizeLine(
    normalizer: VenueNormalizer,
    line: RecordedLine | null,
    head: WsLineHead,
    out: NormalizedRecord[]
  ): void {
    const c = this.counters
    try {
      if (line !== null) {
        if (line.x !== undefined)
          c.parseErrors++ // the live feed received text that was not JSON
        else c.count(normalizer.normalize(line.c, line.m, line.t, out))
        return
      }
      normalizeMessage(normalizer, WS_CHANNEL, head.body, head.t, out, c)
    } catch {
      c.malformed++ // a normalizer bug on odd input must not stop the replay
    }
  }

  async *items(signal: AbortSignal): AsyncIterable<IngestItem> {
    const { speed, log } = this.opts
    const files = recordingFiles(this.opts.path)
    log.info({ files: files.length, speed: speed || 'max' }, 'replaying recording')
    this.phase = 'replay'
    this.replaying = true
    let out: NormalizedRecord[] = []
    let lastFlush = Date.now()
    let firstRecv = Number.NaN
    let startWall = 0
    const c = this.counters
    const head: WsLineHead = { t: 0, v: '', body: '' }
    try {
      for (const file of files) {
        const reader = recordedLines(file)
        for await (const batch of reader.lines) {
          if (signal.aborted) return
          for (let i = 0; i < batch.length; i++) {
            const text = batch[i]!
            if (text.length === 0) continue
            // socket lines: head read by hand, message text to the venue's fast path; others: parsed whole
            let line: RecordedLine | null = null
            if (!readWsLine(text, head)) {
              try {
                line = JSON.parse(text) as RecordedLine
              } catch {
                c.parseErrors++
                continue
              }
            }
            const t = line === null ? head.t : line.t
            c.messages++
            c.lastMessageTs = t
            if (speed > 0) {
              if (Number.isNaN(firstRecv)) {
                firstRecv = t
                startWall = Date.now()
              }
              const wait = startWall + (t - firstRecv) / speed - Date.now()
              if (wait >= MIN_WAIT_MS || (out.length > 0 && Date.now() - lastFlush >= FLUSH_MS)) {
                if (out.length > 0) yield* recordItems(out, c, speed === 0)
                out = []
                lastFlush = Date.now()
                if (wait >= MIN_WAIT_MS) await sleep(wait, signal)
                if (signal.aborted) return
              }
            }
            const normalizer = this.normalizer(line === null ? head.v : line.v)
            if (normalizer === undefined) {
              c.unknown++
              continue
            }
            this.normalizeLine(normalizer, line, head, out)
            if (out.length >= CHUNK_RECORDS) {
              yield* recordItems(out, c, speed === 0)
              out = []
              lastFlush = Date.now()
            }
          }
        }
        if (reader.error !== null) {
          this.truncated++
          log.warn({ file, err: reader.error }, 'recording ends early (truncated), continuing with the next file')
        }
      }
      if (out.length > 0) yield* recordItems(out, c, speed === 0)
      // bulk chunks (full speed) are sealed only by row count or a barrier: the end of the recording is one
      yield { barrier: true, bulkEnd: speed === 0 }
      this.phase = 'done'
      log.info({ messages: c.messages, rows: c.rows }, 'replay finished')
    } finally {
      this.replaying = false
    }
  }
}
