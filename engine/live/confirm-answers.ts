/**
 * @module
 * The confirmation answers of the live state, cached: `GET /v1/confirm` and inbound alerts
 * (engine/alerts) read the same answers. One answer per base and direction is reused for ANSWER_TTL_MS
 * while the live state's version is unchanged; any new record invalidates it at once. Concurrent misses
 * share one computation (no stampede when an answer expires), yet nobody gets an answer older than the
 * cache promises. A hit is synchronous (a map lookup, no promise).
 */
import { confirm, type ConfirmResult, type Direction } from '../confirm/confirm.js'
import { buildConfirmInputs, type ConfirmSources } from './confirm-inputs.js'

/**
 * Longest a computed answer is reused, ms: inputs with 24 h windows slide with time. Any new record
 * (live-state version) invalidates it at once; concurrent requests then share one recomputation.
 */
export const ANSWER_TTL_MS = 1_000
/** Bases whose answers are cached at most (two directions each); the cache is cleared when full. */
const ANSWER_CACHE_MAX = 500

export interface ConfirmAnswer {
  readonly result: ConfirmResult
  /** `JSON.stringify(result)`, computed once and shared by every request it answers */
  readonly body: string
  /** live-state version it was computed from */
  readonly version: number
  /** epoch ms it was computed */
  readonly at: number
}

export interface ConfirmLive extends ConfirmSources {
  readonly version: number
}

/** Slot of a direction in a base's pair of answers. */
const SLOT: Readonly<Record<Direction, 0 | 1>> = { long: 0, short: 1 }

export class ConfirmAnswers {
  /**
   * Cached answers by base, one slot per direction (SLOT): a hit looks up the base string the resolver
   * returned, without building a key string per request.
   */
  private readonly answers = new Map<string, [ConfirmAnswer | undefined, ConfirmAnswer | undefined]>()
  /** computations under way, joined only while as fresh as a cached answer would be */
  private readonly pending = new Map<
    string,
    { readonly version: number; readonly at: number; readonly answer: Promise<ConfirmAnswer> }
  >()

  constructor(private readonly live: ConfirmLive) {}

  /** The answer for a resolved base: synchronous while cached, else the (shared) computation. */
  get(base: string, direction: Direction): ConfirmAnswer | Promise<ConfirmAnswer> {
    const live = this.live
    const now = Date.now()
    const hit = this.answers.get(base)?.[SLOT[direction]]
    if (hit && hit.version === live.version && now - hit.at < ANSWER_TTL_MS) return hit
    const key = direction === 'long' ? `${base}|long` : `${base}|short`
    const running = this.pending.get(key)
    if (running && running.version === live.version && now - running.at < ANSWER_TTL_MS) return running.answer
    const started = { version: live.version, at: now, answer: this.compute(base, direction, live.version, now) }
    this.pending.set(key, started)
    const forget = (): void => {
      if (this.pending.get(key) === started) this.pending.delete(key)
    }
    started.answer.then(forget, forget)
    return started.answer
  }

  private async compute(base: string, direction: Direction, version: number, now: number): Promise<ConfirmAnswer> {
    const inputs = await buildConfirmInputs(base, now, this.live)
    const result = confirm(base, direction, inputs, now)
    const answer: ConfirmAnswer = { result, body: JSON.stringify(result), version, at: now }
    let pair = this.answers.get(base)
    const cached = pair?.[SLOT[direction]]
    // a slower computation that started earlier never replaces a newer answer
    if (!cached || cached.at <= now) {
      if (!pair) {
        if (this.answers.size >= ANSWER_CACHE_MAX) this.answers.clear()
        this.answers.set(base, (pair = [undefined, undefined]))
      }
      pair[SLOT[direction]] = answer
    }
    return answer
  }
}

const shared = new WeakMap<ConfirmLive, ConfirmAnswers>()

/** The one answer cache of a live state, shared by every reader of it. */
export function confirmAnswersOf(live: ConfirmLive): ConfirmAnswers {
  let a = shared.get(live)
  if (!a) shared.set(live, (a = new ConfirmAnswers(live)))
  return a
}
