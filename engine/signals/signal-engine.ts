/**
 * @module
 * The signal engine (docs/signals.md): re-evaluates the confirmation of every tracked base, long and short,
 * when its inputs change, and publishes the events the rules of signal-rules.ts fire on the SignalBus.
 *
 * - Tracked bases: every base with a perpetual market in the live screener (a few hundred; bounded by the
 *   venues' listings).
 * - Scheduling: a record that feeds a base's inputs (perp trade, funding, open interest, long/short) marks
 *   that base dirty; a whale transfer or an on-chain metric marks the tracked base it counts for (the same
 *   mapping as the answer cache's change marks, engine/live/base-changes.ts); live-state rebuilds mark every
 *   base. A dirty base is evaluated at most once per `minIntervalMs`; every base at least once per
 *   `maxIntervalMs` (the inputs' 24 h windows slide with time).
 * - A pass yields to the event loop once it has run SLICE_MS: requests in flight wait for at most one
 *   slice (plus one evaluation), however many bases are due.
 * - A failing evaluation (the funding history's store read on an hourly cache miss) is counted and retried
 *   at the next pass; it never stops the engine.
 * - State per base and direction lives in memory; `restore` rebuilds it from the stored events before the
 *   first pass, so a restart does not fire again what it fired already. A base and direction with no
 *   state is primed silently from its first evaluation.
 */
import { confirm, withoutData, type ConfirmInputs, type Direction } from '../confirm/confirm.js'
import { confirmBaseOf } from '../live/base-changes.js'
import type { NormalizedRecord } from '../records/types.js'
import { backoffMs, sleep } from '../runtime/backoff.js'
import type { SignalBus, SignalEvent, SignalEventName } from './signal-event.js'
import {
  ACTIONS,
  checkRules,
  DEFAULT_RULES,
  LEVELS,
  primeState,
  step,
  type SignalRules,
  type TrackedState
} from './signal-rules.js'
import { signalId } from './signal-id.js'

/** A dirty base is evaluated at most this often, ms. */
export const MIN_INTERVAL_MS = 1_000
/** Every tracked base is evaluated at least this often, ms (the inputs' windows slide with time). */
export const MAX_INTERVAL_MS = 60_000
/** How often the engine looks for due bases, ms: a dirty base waits at most this past its interval. */
export const TICK_MS = 250
/**
 * Main-thread time, ms, a pass runs before it yields to the event loop (setImmediate): under saturating
 * requests every request in flight waits for the slice, so it bounds what a pass adds to their latency.
 * One evaluation costs ~0.1 ms (a base's 24 h windows and the model, both directions).
 */
export const SLICE_MS = 0.5

const DIRECTIONS: readonly Direction[] = ['long', 'short']

/** Where the engine reads its bases and inputs (the live state in the server; fakes in tests). */
export interface SignalInputs {
  /** bases tracked now */
  bases(nowMs: number): Iterable<string>
  /** the confirmation inputs of a base (may read the store; may throw) */
  inputs(base: string, nowMs: number): Promise<ConfirmInputs>
}

/** The latest stored engine event of one base, direction and event kind (signal-store.ts `restoreRows`). */
export interface RestoredRow {
  readonly symbol: string
  readonly direction: string
  readonly event: string
  /** epoch ms */
  readonly last_ms: number
  /** the tracked buckets recorded with that event */
  readonly confidence: string
  readonly action: string
}

export interface SignalEngineOptions {
  readonly rules?: SignalRules
  /** @default MIN_INTERVAL_MS */
  readonly minIntervalMs?: number
  /** @default MAX_INTERVAL_MS */
  readonly maxIntervalMs?: number
  /** @default TICK_MS */
  readonly tickMs?: number
  readonly now?: () => number
}

export interface SignalEngineStats {
  /** bases tracked now */
  readonly bases: number
  /** base and direction pairs with a state */
  readonly states: number
  /** states rebuilt from stored events at start */
  readonly restored: number
  readonly evaluations: number
  /** evaluations that failed (retried at the next pass) */
  readonly eval_errors: number
  /** evaluations of a base without any input data (no state change) */
  readonly no_data: number
  /** events fired since start */
  readonly fired: number
  readonly last_error: string | null
}

export class SignalEngine {
  private readonly rules: SignalRules
  private readonly minIntervalMs: number
  private readonly maxIntervalMs: number
  private readonly tickMs: number
  private readonly now: () => number
  private readonly states = new Map<string, TrackedState>()
  private readonly lastEval = new Map<string, number>()
  private readonly dirty = new Set<string>()
  /** the base whose evaluation awaits its inputs (evaluations run one at a time) */
  private evaluating: string | undefined
  private tracked = new Set<string>()
  private trackedAt = Number.NEGATIVE_INFINITY
  private allDirty = true
  private restoredStates = -1
  private counters = { evaluations: 0, eval_errors: 0, no_data: 0, fired: 0 }
  private lastError: string | null = null

  constructor(
    private readonly source: SignalInputs,
    private readonly bus: SignalBus,
    opts: SignalEngineOptions = {}
  ) {
    this.rules = checkRules(opts.rules ?? DEFAULT_RULES)
    this.minIntervalMs = opts.minIntervalMs ?? MIN_INTERVAL_MS
    this.maxIntervalMs = opts.maxIntervalMs ?? MAX_INTERVAL_MS
    this.tickMs = opts.tickMs ?? TICK_MS
    if (!(this.minIntervalMs > 0 && this.maxIntervalMs >= this.minIntervalMs && this.tickMs > 0)) {
      throw new RangeError('need 0 < minIntervalMs <= maxIntervalMs and tickMs > 0')
    }
    this.now = opts.now ?? Date.now
  }

  /** Live-state observer: marks the bases whose inputs the records feed. Cheap: a set insert per record. */
  apply(records: readonly NormalizedRecord[]): void {
    for (const r of records) {
      switch (r.kind) {
        case 'trade':
          if (r.market === 'perp') this.dirty.add(r.base)
          break
        case 'funding':
        case 'open_interest':
        case 'long_short':
          this.dirty.add(r.base)
          break
        case 'whale_transfer':
        case 'onchain_metric': {
          // a token or asset that is no tracked base (no perpetual market) is not evaluated for it
          const base = confirmBaseOf(r)
          if (base !== null && this.tracked.has(base)) this.dirty.add(base)
          break
        }
      }
    }
  }

  /** Live-state observer: a rebuild may change any base. */
  rebuilt(): Promise<void> {
    this.allDirty = true
    return Promise.resolve()
  }

  /** Whether `restore` has run. */
  get restored(): boolean {
    return this.restoredStates >= 0
  }

  /** Rebuilds the states from the latest stored engine events (once, before the first pass). */
  restore(rows: readonly RestoredRow[]): void {
    const latest = new Map<string, RestoredRow>()
    const fired = new Map<string, Partial<Record<SignalEventName, number>>>()
    for (const r of rows) {
      const key = `${r.symbol}|${r.direction}`
      const f = fired.get(key) ?? {}
      f[r.event as SignalEventName] = r.last_ms
      fired.set(key, f)
      const l = latest.get(key)
      if (!l || r.last_ms > l.last_ms) latest.set(key, r)
    }
    let n = 0
    for (const [key, r] of latest) {
      const level = LEVELS.find((x) => x === r.confidence)
      const action = ACTIONS.find((x) => x === r.action)
      if (!level || !action) continue
      this.states.set(key, { level, action, lastFired: fired.get(key) ?? {} })
      n++
    }
    this.restoredStates = n
  }

  /**
   * The engine's loop (under the supervisor): waits until `ready()` (the live state is built), restores
   * from `load()` (a throw restarts the loop with backoff, so nothing fires before the state is known),
   * then runs a pass every tick until `signal` aborts.
   */
  async run(signal: AbortSignal, ready: () => boolean, load: () => Promise<readonly RestoredRow[]>): Promise<void> {
    while (!signal.aborted && !ready()) await sleep(100, signal)
    if (signal.aborted) return
    if (!this.restored) this.restore(await load())
    let failedPasses = 0
    while (!signal.aborted) {
      const ok = await this.pass()
      // a store that fails is probed by one evaluation per pass, backing off, not by every base each tick
      failedPasses = ok ? 0 : failedPasses + 1
      await sleep(ok ? this.tickMs : Math.max(this.tickMs, backoffMs(failedPasses)), signal)
    }
  }

  /**
   * Evaluates every base that is due now. Stops at the first failing evaluation (the store is down or
   * slow: the remaining bases stay due for the next pass) and then answers false.
   */
  async pass(): Promise<boolean> {
    const now = this.now()
    if (this.allDirty || now - this.trackedAt >= this.maxIntervalMs) {
      this.tracked = new Set(this.source.bases(now))
      this.trackedAt = now
      if (this.allDirty) for (const b of this.tracked) this.dirty.add(b)
      this.allDirty = false
    }
    // a dirty base's records put it in the screener, so it is tracked even between refreshes
    for (const b of this.dirty) this.tracked.add(b)
    const due: string[] = []
    for (const b of this.tracked) {
      const last = this.lastEval.get(b)
      const wait = this.dirty.has(b) ? this.minIntervalMs : this.maxIntervalMs
      if (last === undefined || now - last >= wait) due.push(b)
    }
    let sliceStart = performance.now()
    for (const base of due) {
      if (performance.now() - sliceStart >= SLICE_MS) {
        await new Promise<void>((r) => setImmediate(r))
        sliceStart = performance.now()
      }
      if (!(await this.evaluate(base))) return false
    }
    return true
  }

  /** One base; false when its inputs could not be read (counted; the base stays due). */
  private async evaluate(base: string): Promise<boolean> {
    const now = this.now()
    // cleared before the read: records arriving meanwhile mark it again for the next pass
    this.dirty.delete(base)
    this.lastEval.set(base, now)
    let inputs: ConfirmInputs
    this.evaluating = base
    try {
      inputs = await this.source.inputs(base, now)
    } catch (err) {
      this.counters.eval_errors++
      this.lastError = `${base}: ${err instanceof Error ? err.message : String(err)}`
      this.dirty.add(base)
      this.lastEval.delete(base)
      return false
    } finally {
      this.evaluating = undefined
    }
    this.counters.evaluations++
    // no data at all is no view (the answer would be SKIP by default, not a market move): state kept
    if (withoutData(inputs)) {
      this.counters.no_data++
      return true
    }
    for (const direction of DIRECTIONS) this.evaluateSide(base, direction, inputs, now)
    return true
  }

  private evaluateSide(base: string, direction: Direction, inputs: ConfirmInputs, now: number): void {
    const { composite } = confirm(base, direction, inputs, now)
    const key = `${base}|${direction}`
    const prev = this.states.get(key)
    if (!prev) {
      this.states.set(key, primeState(composite))
      return
    }
    const { state, fired } = step(prev, composite, now, this.rules)
    if (state !== prev) this.states.set(key, state)
    for (const event of fired) {
      const e: SignalEvent = {
        id: signalId(base, direction, event, now),
        event,
        ts: now,
        symbol: base,
        direction,
        confidence: state.level,
        composite,
        action: state.action,
        source: 'engine'
      }
      this.counters.fired++
      this.bus.publish(e)
    }
  }

  /** Whether a base waits for an evaluation or is being evaluated (tests, diagnostics). */
  pending(base: string): boolean {
    return this.dirty.has(base) || this.evaluating === base
  }

  /** The engine's moment (epoch ms) of a base's latest evaluation, undefined before the first (tests, diagnostics). */
  lastEvaluatedAt(base: string): number | undefined {
    return this.lastEval.get(base)
  }

  /** The tracked state of a base and direction (tests, diagnostics). */
  stateOf(base: string, direction: Direction): TrackedState | undefined {
    return this.states.get(`${base}|${direction}`)
  }

  stats(): SignalEngineStats {
    return {
      bases: this.tracked.size,
      states: this.states.size,
      restored: Math.max(0, this.restoredStates),
      ...this.counters,
      last_error: this.lastError
    }
  }
}
