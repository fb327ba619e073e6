/**
 * @module
 * `SOURCES=replay:<file or dir>`: replays recordings (RECORD_DIR) through the same venue normalizers as
 * the live feeds, so the records are the ones the live feed produced. REPLAY_SPEED paces it: 1 = at the
 * recorded pace (receive times), 10 = ten times faster, 0 (`max`) = as fast as the pipeline takes it.
 * Records keep their exchange timestamps. Gaps in the recorded trade ids (Binance) and reconnect windows
 * (Bybit, OKX markers) are counted, not filled (the fills the live feed fetched are in the recording and
 * replay like any REST answer). The source ends when the recording does (phase `done`).
 *
 * Two paths, one per-line code (record/replay-lines.ts), same chunks, same batches, same dedup tokens:
 * - worker (a full-speed replay of WORKER_MIN_BYTES or more, a bulk load): a worker thread reads,
 *   normalizes and encodes (workers/replay-worker.ts; Binance aggTrade lines of the recorded shape go
 *   from bytes to TSV rows without records, binance/aggtrade-fast.ts, the same rows); this thread only
 *   routes the ready chunks into the pipeline. Like the demo backfill and large admin-ingest bodies, a
 *   bulk replay hands no decoded records to the live state: the live state reloads from the store at the
 *   end (the final barrier's rebuildLive).
 * - in-thread (paced replays, small recordings): records also go to the live state as they are replayed.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../../engine/log.js'
import { distPath } from '../../engine/paths.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import type { IngestItem } from '../encoded-chunk.js'
import { ReplayLines, type ReplayCounts } from '../record/replay-lines.js'
import { recordedLines, recordingFiles } from '../record/replay-reader.js'
import type { MainToReplay, ReplayToMain, ReplayWorkerData } from '../workers/replay-protocol.js'
import { workerPool } from '../workers/worker-pool.js'
import { sleep } from '../../engine/runtime/backoff.js'
import { CHUNK_RECORDS, FLUSH_MS, recordItems } from './feed/feed-pump.js'
import type { Source, SourceStatus } from './source.js'

/** Waits shorter than this are not slept (the timer would overshoot them anyway), ms. */
const MIN_WAIT_MS = 2
/**
 * Recordings (bytes on disk, compressed) from this size replay at full speed in a worker thread: about
 * 50,000 aggTrades gzipped; smaller ones are not worth a thread and keep feeding the live state.
 */
export const WORKER_MIN_BYTES = 1 << 20
/**
 * Young generation of the replay worker's heap, MB. Every line the general path takes (all but the
 * Binance aggTrade lines of the byte path, which allocate next to nothing) allocates short-lived strings
 * and records; a larger nursery than V8's default scavenges less often and promotes less, which cut the
 * worker's CPU by ~12-15% on that path (2M-trade capture, whole-process CPU 4.3 s against 4.8-5.1 s with
 * the default), for at most this much memory more while a replay runs.
 */
const WORKER_YOUNG_GEN_MB = 128

export interface ReplaySourceOptions {
  /** a recording file or a directory of them */
  readonly path: string
  /** 1 = recorded pace, 0 = as fast as possible */
  readonly speed: number
  readonly log: Logger
  /**
   * where a full-speed replay runs: `auto` (default) in a worker from WORKER_MIN_BYTES, `worker` always,
   * `main` never (tests compare the two). Paced replays always run in-thread.
   */
  readonly thread?: 'auto' | 'worker' | 'main'
}

export class ReplaySource implements Source {
  readonly name: string
  readonly synthetic = false
  /** the in-thread path's state; the worker path's counters arrive in `counts` */
  private readonly lines = new ReplayLines()
  private counts: ReplayCounts | null = null
  private phase = 'starting'
  private replaying = false
  private truncated = 0

  constructor(private readonly opts: ReplaySourceOptions) {
    this.name = `replay:${path.basename(opts.path)}`
  }

  status(): SourceStatus {
    const c = this.counts ?? this.lines.counts()
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
      gaps_found: c.gapsFound,
      unsequenced: c.unsequenced
    }
  }

  /** Whether this replay runs in a worker thread. */
  private inWorker(files: readonly string[]): boolean {
    const thread = this.opts.thread ?? 'auto'
    if (this.opts.speed !== 0 || thread === 'main') return false
    if (thread === 'worker') return true
    let bytes = 0
    for (const f of files) bytes += fs.statSync(f).size
    return bytes >= WORKER_MIN_BYTES
  }

  async *items(signal: AbortSignal): AsyncIterable<IngestItem> {
    const { speed, log } = this.opts
    const files = recordingFiles(this.opts.path)
    const worker = this.inWorker(files)
    log.info({ files: files.length, speed: speed || 'max', worker }, 'replaying recording')
    this.phase = 'replay'
    this.replaying = true
    try {
      const complete = yield* worker ? this.fromWorker(files, signal) : this.inThread(files, signal)
      if (!complete) return
      // bulk chunks (full speed) are sealed only by row count or a barrier: the end of the recording is one
      yield { barrier: true, bulkEnd: speed === 0, rebuildLive: worker }
      this.phase = 'done'
      const c = this.status()
      log.info({ messages: c.messages, rows: c.rows }, 'replay finished')
    } finally {
      this.replaying = false
    }
  }

  private fileEnded(file: string, error: string | null): void {
    if (error === null) return
    this.truncated++
    this.opts.log.warn({ file, err: error }, 'recording ends early (truncated), continuing with the next file')
  }

  /** The in-thread path; returns false when stopped by `signal` before the end. */
  private async *inThread(files: readonly string[], signal: AbortSignal): AsyncGenerator<IngestItem, boolean> {
    const { speed } = this.opts
    const lines = this.lines
    const c = lines.counters
    let out: NormalizedRecord[] = []
    let lastFlush = Date.now()
    let firstRecv = Number.NaN
    let startWall = 0
    const hand = (records: NormalizedRecord[]): IngestItem[] => recordItems(records, c, speed === 0)
    for (const file of files) {
      const reader = recordedLines(file)
      for await (const batch of reader.lines) {
        if (signal.aborted) return false
        for (let i = 0; i < batch.length; i++) {
          const t = lines.read(batch[i]!)
          if (Number.isNaN(t)) continue
          if (speed > 0) {
            if (Number.isNaN(firstRecv)) {
              firstRecv = t
              startWall = Date.now()
            }
            const wait = startWall + (t - firstRecv) / speed - Date.now()
            if (wait >= MIN_WAIT_MS || (out.length > 0 && Date.now() - lastFlush >= FLUSH_MS)) {
              if (out.length > 0) yield* hand(out)
              out = []
              lastFlush = Date.now()
              if (wait >= MIN_WAIT_MS) await sleep(wait, signal)
              if (signal.aborted) return false
            }
          }
          lines.normalize(out)
          if (out.length >= CHUNK_RECORDS) {
            yield* hand(out)
            out = []
            lastFlush = Date.now()
          }
        }
      }
      this.fileEnded(file, reader.error)
    }
    if (out.length > 0) yield* hand(out)
    return true
  }

  /** The worker path; returns false when stopped by `signal` before the end. */
  private async *fromWorker(files: readonly string[], signal: AbortSignal): AsyncGenerator<IngestItem, boolean> {
    const data: ReplayWorkerData = { files }
    const { worker, next } = await workerPool.stream<MainToReplay, ReplayToMain>({
      file: distPath('ingest', 'workers', 'replay-worker.js'),
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GEN_MB }
    })
    const stop = (): void => worker.post({ type: 'stop' })
    signal.addEventListener('abort', stop)
    try {
      for (;;) {
        const item = await next()
        if ('end' in item) {
          const e = item.end
          const message = e.kind === 'error' ? e.error.message : `the replay worker exited (code ${e.code})`
          throw new Error(`replay worker: ${message}`)
        }
        const msg = item.message
        if (msg.type === 'error') throw new Error(`replay worker: ${msg.message}`)
        if (msg.type === 'truncated') {
          this.fileEnded(msg.file, msg.error)
          continue
        }
        this.counts = msg.counts
        if (msg.type === 'end') return msg.complete && !signal.aborted
        // a stop was asked: the batches still arriving are not handed on (as the in-thread path stops)
        if (signal.aborted) continue
        for (const c of msg.chunks) yield { ...c, data: new Uint8Array(c.data) }
        worker.post({ type: 'credit', n: 1 })
      }
    } finally {
      signal.removeEventListener('abort', stop)
      stop()
      await worker.terminate()
    }
  }
}
