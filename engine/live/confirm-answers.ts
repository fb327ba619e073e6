/**
 * @module
 * The confirmation answers of the live state, cached: `GET /v1/confirm` and inbound alerts
 * (engine/alerts) read the same answers. Freshness rule, per base and direction:
 *
 * - an answer is served while it is younger than ANSWER_TTL_MS (its 24 h windows slide with the clock);
 * - a record feeding the answer's base (engine/live/base-changes.ts) makes it stale once it is
 *   ANSWER_REFRESH_MS old: under a live feed a base's answer is recomputed at most once per
 *   ANSWER_REFRESH_MS, and it reflects every record applied more than ANSWER_REFRESH_MS before the request;
 * - records of other bases never make it stale.
 *
 * The answer's `ts` is when it was computed (epoch seconds). Concurrent misses share one computation (no
 * stampede when an answer expires), joined only under the same rule. A hit is synchronous (a map lookup, no
 * promise) and serves bytes encoded once per answer.
 */
import { confirm, type ConfirmResult, type Direction } from '../confirm/confirm.js'
import type { BaseChanges } from './base-changes.js'
import { buildConfirmInputs, type ConfirmSources } from './confirm-inputs.js'

/** Longest a computed answer is served, ms, changed inputs or not: inputs with 24 h windows slide with time. */
export const ANSWER_TTL_MS = 1_000
/**
 * Age, ms, from which a new record of the answer's base makes it stale: bounds recomputation under a live
 * feed (a busy base gets records in every batch) to once per this per base and direction.
 */
export const ANSWER_REFRESH_MS = 250
/** Bases whose answers are cached at most (two directions each); the cache is cleared when full. */
const ANSWER_CACHE_MAX = 500

export interface ConfirmAnswer {
  readonly result: ConfirmResult
  /** `JSON.stringify(result)`, computed once and shared by every request it answers */
  readonly body: string
  /** `body` as UTF-8 bytes, encoded once: what a hot read writes to the socket */
  readonly bytes: Buffer
  /** the base's change mark (BaseChanges.of) when the computation started */
  readonly mark: number
  /** epoch ms it was computed (the result's `ts` in ms) */
  readonly at: number
}

export interface ConfirmLive extends ConfirmSources {
  readonly changes: Pick<BaseChanges, 'of'>
}

/** Slot of a direction in a base's pair of answers. */
const SLOT: Readonly<Record<Direction, 0 | 1>> = { long: 0, short: 1 }

/** Whether an answer (or a computation) of change mark `mark` started at `at` may serve a request now. */
function fresh(mark: number, at: number, current: number, now: number): boolean {
  const age = now - at
  return age < ANSWER_TTL_MS && (mark === current || age < ANSWER_REFRESH_MS)
}

export class ConfirmAnswers {
  /**
   * Cached answers by base, one slot per direction (SLOT): a hit looks up the base string the resolver
   * returned, without building a key string per request.
   */
  private readonly answers = new Map<string, [ConfirmAnswer | undefined, ConfirmAnswer | undefined]>()
  /** computations under way, joined under the freshness rule */
  private readonly pending = new Map<
    string,
    { readonly mark: number; readonly at: number; readonly answer: Promise<ConfirmAnswer> }
  >()
  /** answers computed (cache misses that ran the model) */
  computed = 0

  constructor(
    private readonly live: ConfirmLive,
    /** epoch ms; tests pass a clock they move */
    private readonly clock: () => number = Date.now
  ) {}

  /** The answer for a resolved base: synchronous while cached, else the (shared) computation. */
  get(base: string, direction: Direction): ConfirmAnswer | Promise<ConfirmAnswer> {
    const now = this.clock()
    const current = this.live.changes.of(base)
    const hit = this.answers.get(base)?.[SLOT[direction]]
    if (hit && fresh(hit.mark, hit.at, current, now)) return hit
    const key = direction === 'long' ? `${base}|long` : `${base}|short`
    const running = this.pending.get(key)
    if (running && fresh(running.mark, running.at, current, now)) return running.answer
    const started = { mark: current, at: now, answer: this.compute(base, direction, current, now) }
    this.pending.set(key, started)
    const forget = (): void => {
      if (this.pending.get(key) === started) this.pending.delete(key)
    }
    started.answer.then(forget, forget)
    return started.answer
  }

  private async compute(base: string, direction: Direction, mark: number, now: number): Promise<ConfirmAnswer> {
    this.computed++
    const inputs = await buildConfirmInputs(base, now, this.live)
    const result = confirm(base, direction, inputs, now)
    const body = JSON.stringify(result)
    const answer: ConfirmAnswer = { result, body, bytes: Buffer.from(body), mark, at: now }
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
