/**
 * @module
 * The demo market as a source (`SOURCES=sim`, the default). Always labelled synthetic. On first start it
 * backfills SIM_BACKFILL_DAYS of history in backfill density, then runs live. Progress is checkpointed in
 * `engine_state` after each acknowledged backfill window and every 10 s live, so a restart resumes where
 * it stopped; windows are deterministic, so a window written just before a crash is deduplicated.
 */
import type { Logger } from '../../engine/log.js'
import { distPath } from '../../engine/paths.js'
import type { Store } from '../../engine/store/store.js'
import type { IngestItem } from '../encoded-chunk.js'
import type { MainToWorker, WorkerToMain } from '../workers/protocol.js'
import { workerPool } from '../workers/worker-pool.js'
import type { SimWorkerData } from '../workers/sim-worker-data.js'
import type { Source, SourceStatus } from './source.js'

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
/** Backfill window: 12 h keeps batches near 50k rows and a crash redoes at most 12 h of demo data. */
const BACKFILL_SLICE_MS = 12 * HOUR_MS
/** Live checkpoint interval; a restart regenerates at most this much plus in-flight windows. */
const LIVE_CHECKPOINT_MS = 10_000
/** Longest live stretch regenerated after a stop; older gaps stay gaps (the demo market was down). */
const MAX_CATCHUP_MS = 15 * 60_000
/** Always regenerated after a restart: covers windows written after the last checkpoint. */
const REPLAY_MS = 60_000

export interface SimSourceOptions {
  readonly seed: number
  readonly backfillDays: number
  /** perpetual markets of the demo, the most liquid first (SIM_MARKETS); absent: all of them */
  readonly maxMarkets?: number | undefined
  readonly store: Store
  readonly log: Logger
  /** clock, for tests. @default Date.now */
  readonly now?: () => number
}

interface SimState {
  readonly liveFrom: number
  readonly doneTo: number
}

export class SimSource implements Source {
  readonly name = 'sim'
  readonly synthetic = true
  private rows = 0
  private lastTs: number | null = null
  private phase = 'starting'
  private connected = false
  private lastCheckpoint = 0
  /** until the first backfill is written and the live state rebuilt from it (null: nothing to wait for) */
  private warming: string | null = 'demo market start'

  constructor(private readonly opts: SimSourceOptions) {}

  private get stateKey(): string {
    return `sim:${this.opts.seed}`
  }

  status(): SourceStatus {
    return {
      name: this.name,
      synthetic: true,
      connected: this.connected,
      last_event_ts: this.lastTs,
      rows: this.rows,
      phase: this.phase
    }
  }

  async loadState(): Promise<SimState> {
    const rows = await this.opts.store.query<{ value: string }>(
      'SELECT argMax(value, updated) AS value FROM engine_state WHERE key = {key:String} GROUP BY key',
      { key: this.stateKey }
    )
    if (rows[0]) return JSON.parse(rows[0].value) as SimState
    const now = (this.opts.now ?? Date.now)()
    // backfill up to the current minute, so the live feed starts now instead of catching up an hour
    const liveFrom = Math.floor(now / MINUTE_MS) * MINUTE_MS
    return { liveFrom, doneTo: liveFrom - this.opts.backfillDays * 24 * HOUR_MS }
  }

  private async checkpoint(state: SimState, force: boolean): Promise<void> {
    const now = Date.now()
    if (!force && now - this.lastCheckpoint < LIVE_CHECKPOINT_MS) return
    this.lastCheckpoint = now
    try {
      await this.opts.store.command(
        'INSERT INTO engine_state (key, value, updated) VALUES ({key:String}, {value:String}, now64(3))',
        { key: this.stateKey, value: JSON.stringify(state) }
      )
    } catch (err) {
      // a backfill window is checkpointed or redone (the source restarts); a live checkpoint is best effort:
      // a store outage must not restart the feed, the next window tries again
      if (force) throw err
      this.lastCheckpoint = 0
      this.opts.log.warn({ err: (err as Error).message }, 'demo market checkpoint not saved; retrying next window')
    }
  }

  warmingUp(): string | null {
    return this.warming
  }

  async *items(signal: AbortSignal): AsyncIterable<IngestItem> {
    const state = await this.loadState()
    const backfillStart = Date.now()
    if (state.doneTo >= state.liveFrom) this.warming = null
    else if (this.warming) this.warming = 'demo backfill'
    const data: SimWorkerData = {
      seed: this.opts.seed,
      maxMarkets: this.opts.maxMarkets,
      liveFrom: state.liveFrom,
      doneTo: state.doneTo,
      backfillSliceMs: BACKFILL_SLICE_MS,
      maxCatchupMs: MAX_CATCHUP_MS,
      replayMs: REPLAY_MS
    }
    this.opts.log.warn(
      {
        seed: data.seed,
        backfill_from: new Date(state.doneTo).toISOString(),
        live_from: new Date(state.liveFrom).toISOString()
      },
      'demo market (SOURCES=sim): all data from this source is SYNTHETIC'
    )
    const { worker, next } = await workerPool.stream<MainToWorker, WorkerToMain>({
      file: distPath('ingest', 'workers', 'sim-worker.js'),
      workerData: data
    })
    const stop = (): void => worker.post({ type: 'stop' })
    signal.addEventListener('abort', stop)
    this.connected = true
    try {
      // after abort the worker finishes its window and barrier, then ends: keep draining until then
      for (;;) {
        const item = await next()
        if ('end' in item) {
          if (item.end.kind === 'error') throw new Error(`demo market worker: ${item.end.error.message}`)
          break
        }
        const msg = item.message
        if (msg.type === 'end') break
        if (msg.type === 'error') throw new Error(`demo market worker: ${msg.message}`)
        if (msg.type === 'chunk') {
          this.rows += msg.rows
          if (this.lastTs === null || msg.maxTs > this.lastTs) this.lastTs = msg.maxTs
          yield { ...msg, data: new Uint8Array(msg.data) }
        } else if (msg.type === 'records') {
          yield { live: true, records: msg.records }
        } else {
          this.phase = msg.phase
          const st = { liveFrom: state.liveFrom, doneTo: msg.doneTo }
          // the last backfill window: the live state reloads from the store once it is written
          const backfillEnds = msg.phase === 'backfill' && msg.doneTo >= state.liveFrom
          yield {
            barrier: true,
            rebuildLive: backfillEnds,
            bulkEnd: backfillEnds,
            onDone: () => this.checkpoint(st, msg.phase === 'backfill')
          }
          // resumed only after the pipeline wrote the backfill and rebuilt the live state from it
          if (backfillEnds && this.warming) {
            this.warming = null
            this.opts.log.info({ ms: Date.now() - backfillStart, rows: this.rows }, 'demo backfill ended')
          }
        }
        worker.post({ type: 'credit', n: 1 })
      }
    } finally {
      this.connected = false
      signal.removeEventListener('abort', stop)
      stop()
      await worker.terminate()
    }
  }
}
