/**
 * @module
 * The live screener's answers, cached per selection (engine/live/screener-select.ts: base, venue, metric,
 * sort, order, limit) as JSON bytes encoded once. A screener answer depends only on the book and the UTC
 * hour of the request (its 24 h windows are hour-aligned), so the freshness rule, per selection, is:
 *
 * - an answer is served while the book has not changed since it was computed (`ScreenerBook.version`) in
 *   the same UTC hour: it is then exactly what a computation at the request would give;
 * - after the book changed, the next request recomputes it; an answer recomputed because the book changed
 *   is served for SCREENER_REFRESH_MS whatever else changes meanwhile, so under a live feed a selection is
 *   recomputed at most once per SCREENER_REFRESH_MS, and a change after a quiet spell shows at once;
 * - a new UTC hour and a rebuild of the live state (`ScreenerBook.epoch`) make every answer stale at once.
 *
 * So a served answer either equals a fresh computation or was computed less than SCREENER_REFRESH_MS
 * earlier. The cache holds at most SCREENER_ANSWERS_MAX answers and SCREENER_ANSWERS_MAX_BYTES of bodies;
 * beyond either the least recently used are dropped (counted in `evictions`). A computation is synchronous
 * (the book is in memory), so there is nothing in flight to share and a hit is a map lookup.
 */
import type { ScreenerBook } from './screener-book.js'
import { screenerAnswer, selectionKey, type ScreenerSelection } from './screener-select.js'

const HOUR_MS = 3_600_000
/**
 * How long, ms, an answer recomputed because the book changed is served through further changes: a live
 * feed changes the book in nearly every batch, several times a second, and a full answer (every market)
 * takes milliseconds to compute and tens to hundreds of kB to encode.
 */
export const SCREENER_REFRESH_MS = 250
/** Selections cached at most: every venue x metric x sort x order of the full list, with room for per-base asks. */
export const SCREENER_ANSWERS_MAX = 256
/** Body bytes cached at most: about a hundred answers of every market (~170 kB each for ~500 markets). */
export const SCREENER_ANSWERS_MAX_BYTES = 16 * 1024 * 1024

export interface ScreenerAnswer {
  /** `JSON.stringify(screenerAnswer(book, at, selection))` as UTF-8, encoded once, written by every request it answers */
  readonly bytes: Buffer
  /** the book's version and epoch it was computed from */
  readonly version: number
  readonly epoch: number
  /** epoch ms it was computed; its UTC hour is the hour of its 24 h windows */
  readonly at: number
  /** recomputed because the book changed under a cached answer: served for SCREENER_REFRESH_MS regardless */
  readonly held: boolean
}

export interface ScreenerAnswersLimits {
  /** @default SCREENER_ANSWERS_MAX */
  readonly maxAnswers?: number
  /** @default SCREENER_ANSWERS_MAX_BYTES */
  readonly maxBytes?: number
}

export class ScreenerAnswers {
  /** by selection key, least recently used first */
  private readonly answers = new Map<string, ScreenerAnswer>()
  private bytes = 0
  private readonly maxAnswers: number
  private readonly maxBytes: number
  /** answers computed (misses and recomputations) */
  computed = 0
  /** answers dropped to stay within the limits */
  evictions = 0

  constructor(
    private readonly book: ScreenerBook,
    /** epoch ms; tests pass a clock they move */
    private readonly clock: () => number = Date.now,
    limits: ScreenerAnswersLimits = {}
  ) {
    this.maxAnswers = limits.maxAnswers ?? SCREENER_ANSWERS_MAX
    this.maxBytes = limits.maxBytes ?? SCREENER_ANSWERS_MAX_BYTES
    if (!(this.maxAnswers >= 1) || !(this.maxBytes >= 1)) throw new RangeError('screener answer limits must be >= 1')
  }

  /** The answer for `s` now: the cached one under the freshness rule, else computed (synchronously). */
  get(s: ScreenerSelection): ScreenerAnswer {
    const now = this.clock()
    const key = selectionKey(s)
    const hit = this.answers.get(key)
    // same hour and no rebuild since: only a change of the book can make it stale
    const sameWindows =
      hit !== undefined && hit.epoch === this.book.epoch && Math.floor(hit.at / HOUR_MS) === Math.floor(now / HOUR_MS)
    if (sameWindows && (hit.version === this.book.version || (hit.held && now - hit.at < SCREENER_REFRESH_MS))) {
      // most recently used last
      this.answers.delete(key)
      this.answers.set(key, hit)
      return hit
    }
    return this.compute(key, s, now, sameWindows)
  }

  /** Answers cached now, and their bytes. */
  get size(): { readonly answers: number; readonly bytes: number } {
    return { answers: this.answers.size, bytes: this.bytes }
  }

  private compute(key: string, s: ScreenerSelection, now: number, held: boolean): ScreenerAnswer {
    this.computed++
    const answer: ScreenerAnswer = {
      bytes: Buffer.from(JSON.stringify(screenerAnswer(this.book, now, s))),
      version: this.book.version,
      epoch: this.book.epoch,
      at: now,
      held
    }
    const old = this.answers.get(key)
    if (old) {
      this.answers.delete(key)
      this.bytes -= old.bytes.length
    }
    this.answers.set(key, answer)
    this.bytes += answer.bytes.length
    // the answer just computed stays (it is being served) even when alone it exceeds the byte budget
    for (const [k, a] of this.answers) {
      if (this.answers.size <= this.maxAnswers && this.bytes <= this.maxBytes) break
      if (a === answer) break
      this.answers.delete(k)
      this.bytes -= a.bytes.length
      this.evictions++
    }
    return answer
  }
}

const shared = new WeakMap<ScreenerBook, ScreenerAnswers>()

/** The one answer cache of a live screener book, shared by every reader of it. */
export function screenerAnswersOf(book: ScreenerBook): ScreenerAnswers {
  let a = shared.get(book)
  if (!a) shared.set(book, (a = new ScreenerAnswers(book)))
  return a
}
