/**
 * @module
 * The signals of one server, wired: the SignalBus, the engine observing the live state, and the writer
 * storing every published event. server/start.ts builds it and starts its two supervised loops;
 * GET /v1/signals, the push stream's `signals:` channels and webhook delivery read from it.
 */
import { buildConfirmInputs } from '../live/confirm-inputs.js'
import type { LiveState } from '../live/live-state.js'
import type { Supervisor } from '../runtime/supervisor.js'
import type { Store } from '../store/store.js'
import { SignalBus } from './signal-event.js'
import { SignalEngine, type SignalEngineOptions, type SignalEngineStats, type SignalInputs } from './signal-engine.js'
import { restoreRows } from './signal-store.js'
import { SignalWriter, type SignalWriterStats } from './signal-writer.js'

/** Names of the supervised loops (shown in /v1/health `loops`). */
export const ENGINE_LOOP = 'signals'
export const WRITER_LOOP = 'signals-store'

export interface SignalStats extends SignalEngineStats, SignalWriterStats {
  /** events published on the bus since start (engine and forwarded alerts) */
  readonly published: number
  /** bus listener calls that threw */
  readonly listener_errors: number
}

/** The engine's view of the live state: the screener's bases and the inputs /v1/confirm uses. */
export function liveSignalInputs(live: LiveState): SignalInputs {
  return {
    bases: (nowMs) => new Set(live.screener.rows(nowMs).map((r) => r.base)),
    inputs: (base, nowMs) => buildConfirmInputs(base, nowMs, live)
  }
}

export class SignalService {
  readonly bus = new SignalBus()
  readonly engine: SignalEngine
  readonly writer: SignalWriter

  constructor(
    private readonly live: LiveState,
    private readonly store: Store,
    opts: SignalEngineOptions = {}
  ) {
    this.engine = new SignalEngine(liveSignalInputs(live), this.bus, opts)
    this.writer = new SignalWriter(store)
    this.bus.subscribe((e) => this.writer.offer(e))
  }

  /** Observes the live state and starts the writer and the engine (which waits for `ready`). */
  start(supervisor: Supervisor, ready: () => boolean): void {
    this.live.observe(this.engine)
    supervisor.run(WRITER_LOOP, (signal) => this.writer.run(signal))
    supervisor.run(ENGINE_LOOP, (signal) => this.engine.run(signal, ready, () => restoreRows(this.store)))
  }

  stats(): SignalStats {
    return {
      ...this.engine.stats(),
      ...this.writer.stats(),
      published: this.bus.published,
      listener_errors: this.bus.listenerErrors
    }
  }
}
