/**
 * @module
 * The one supervisor of background loops (sources, the stream hub's tick, live-state rebuilds, compaction,
 * key and quota loaders, and later webhook delivery, chain sources and node health). A loop is an async
 * function of an abort signal. When it throws, the error is counted and logged per loop, and the loop is
 * restarted after an exponential backoff (engine/runtime/backoff.ts); it never reaches the process as an unhandled
 * rejection. A loop that returns has finished (`done`). `/v1/health` shows every loop's state and counters.
 * Each loop gets an abort signal of its own, aborted by `stop` (a fan-out over the loops): loops add abort
 * listeners as they wait (sleeps, sockets, feeds), and one signal shared by every loop would collect them
 * all (Node warns past 10 listeners on one signal).
 */
import type { Logger } from '../log.js'
import { backoffMs, sleep } from './backoff.js'

export type LoopState = 'running' | 'backoff' | 'done' | 'stopped'

export interface LoopStatus {
  readonly name: string
  readonly state: LoopState
  /** errors thrown by the loop since start */
  readonly errors: number
  /** restarts after an error */
  readonly restarts: number
  readonly last_error: string | null
  /** epoch ms of the last error */
  readonly last_error_ts: number | null
}

interface Loop {
  name: string
  state: LoopState
  errors: number
  restarts: number
  lastError: string | null
  lastErrorTs: number | null
  run: Promise<void>
  /** aborted by the supervisor's stop: the loop's own signal */
  readonly stop: AbortController
}

/** A loop that ran this long without failing starts its backoff over, ms. */
const HEALTHY_RUN_MS = 60_000

export class Supervisor {
  private readonly loops = new Map<string, Loop>()
  private readonly abort = new AbortController()

  constructor(
    private readonly log: Logger,
    /** backoff of the n-th consecutive restart, ms (tests pass a short one) */
    private readonly backoff: (attempt: number) => number = backoffMs
  ) {}

  /** Aborted when the supervisor stops (loops read their own signal, see `run`). */
  get signal(): AbortSignal {
    return this.abort.signal
  }

  /**
   * Starts `body` under supervision. It runs until it returns (done) or the supervisor stops; a throw is
   * counted and restarts it after a backoff. `body` must end soon after its signal aborts.
   */
  run(name: string, body: (signal: AbortSignal) => Promise<void>): void {
    const loop = this.register(name)
    loop.run = this.drive(loop, body)
  }

  /** Runs `tick` every `everyMs` under supervision (a throwing tick is counted; the next one still runs). */
  every(name: string, everyMs: number, tick: () => Promise<void> | void): void {
    this.run(name, async (signal) => {
      while (!signal.aborted) {
        await sleep(everyMs, signal)
        if (signal.aborted) return
        try {
          await tick()
        } catch (err) {
          this.count(this.loops.get(name)!, err)
        }
      }
    })
  }

  /**
   * Registers a task driven by events rather than a loop of its own (e.g. compaction after bulk loads):
   * it shows in the status as running, and the returned function counts its errors.
   */
  track(name: string): (err: unknown) => void {
    this.register(name)
    return (err) => this.report(name, err)
  }

  /** Counts an error of a loop that handles it itself (e.g. one tick of `every`). */
  report(name: string, err: unknown): void {
    const loop = this.loops.get(name)
    if (loop) this.count(loop, err)
    else this.log.error({ loop: name, err: message(err) }, 'background task failed')
  }

  status(): LoopStatus[] {
    return [...this.loops.values()].map((l) => ({
      name: l.name,
      state: l.state,
      errors: l.errors,
      restarts: l.restarts,
      last_error: l.lastError,
      last_error_ts: l.lastErrorTs
    }))
  }

  /** Aborts every loop and waits until each has ended. */
  async stop(): Promise<void> {
    this.abort.abort()
    for (const l of this.loops.values()) l.stop.abort()
    await Promise.all([...this.loops.values()].map((l) => l.run))
    for (const l of this.loops.values()) if (l.state === 'running') l.state = 'stopped'
  }

  private register(name: string): Loop {
    if (this.loops.has(name)) throw new Error(`loop ${name} is already supervised`)
    const loop: Loop = {
      name,
      state: 'running',
      errors: 0,
      restarts: 0,
      lastError: null,
      lastErrorTs: null,
      run: Promise.resolve(),
      stop: new AbortController()
    }
    // a loop started after the stop ends at once
    if (this.abort.signal.aborted) loop.stop.abort()
    this.loops.set(name, loop)
    return loop
  }

  private count(loop: Loop, err: unknown): void {
    loop.errors++
    loop.lastError = message(err)
    loop.lastErrorTs = Date.now()
    this.log.error({ loop: loop.name, errors: loop.errors, err: loop.lastError }, 'background loop failed')
  }

  private async drive(loop: Loop, body: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const signal = loop.stop.signal
    let attempt = 0
    while (!signal.aborted) {
      const started = Date.now()
      loop.state = 'running'
      try {
        await body(signal)
        loop.state = signal.aborted ? 'stopped' : 'done'
        return
      } catch (err) {
        if (signal.aborted) break
        this.count(loop, err)
        attempt = Date.now() - started > HEALTHY_RUN_MS ? 1 : attempt + 1
        loop.state = 'backoff'
        await sleep(this.backoff(attempt), signal)
        if (!signal.aborted) loop.restarts++
      }
    }
    loop.state = 'stopped'
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
