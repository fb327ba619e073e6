/**
 * @module
 * Forward returns of a direction from stored candles (docs/confirm.md, "Evaluation"). The price at a moment
 * t is the close of the candle that ends at t (bucket start t − width): the last trade before t, known at t.
 * The return at horizon h of a step t is close(t + h) / close(t) − 1, negated for a short. A step whose
 * t + h lies after the end of the newest closed candle read is `beyond` the data; one whose entry or exit
 * candle is missing (a gap without trades) has `no_price`. Both are left out of the statistics and counted.
 */
import type { Direction } from '../confirm/types.js'

/** Why a step has no return at a horizon. */
export type NoReturn = 'beyond' | 'no_price'

/** Closes of one market's closed candles keyed by candle END (bucket start + width), epoch ms. */
export interface Closes {
  readonly byEnd: ReadonlyMap<number, number>
  /** end of the newest closed candle read, epoch ms; -Infinity when none was */
  readonly dataEndMs: number
}

/** Closes of candles given by bucket start, all of one width `widthMs`. */
export function closesOf(candles: readonly { timestamp: number; close: number }[], widthMs: number): Closes {
  const byEnd = new Map<number, number>()
  let dataEndMs = -Infinity
  for (const c of candles) {
    const end = c.timestamp + widthMs
    byEnd.set(end, c.close)
    if (end > dataEndMs) dataEndMs = end
  }
  return { byEnd, dataEndMs }
}

/** exit / entry − 1 for a long, its negation for a short; fractions. */
export function directionReturn(entry: number, exit: number, direction: Direction): number {
  const r = exit / entry - 1
  return direction === 'short' ? -r : r
}

/** The forward return of `direction` from step `tMs` at horizon `hMs`, or why there is none. */
export function forwardReturn(closes: Closes, tMs: number, hMs: number, direction: Direction): number | NoReturn {
  if (tMs + hMs > closes.dataEndMs) return 'beyond'
  const entry = closes.byEnd.get(tMs)
  const exit = closes.byEnd.get(tMs + hMs)
  if (entry === undefined || exit === undefined || !(entry > 0) || !(exit > 0)) return 'no_price'
  return directionReturn(entry, exit, direction)
}
