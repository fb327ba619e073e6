/**
 * @module
 * The rows of a run of moments (ascending by event time, each tagged with its first usable step `e`) in a
 * window `[t − spanMs, t]` that slides with the step: the window's start only moves forward, so over the
 * whole run each row is passed once at the start and a step reads only its own window's rows.
 */
import type { Tagged } from './series-load.js'

export class SlidingRows<T extends { readonly ts: number }> {
  /** index of the first row with ts >= the last window's start */
  private lo = 0

  constructor(
    private readonly rows: readonly Tagged<T>[],
    /** the window's length, ms */
    private readonly spanMs: number
  ) {}

  /** The rows with ts in [t − spanMs, t] usable at step i, in their order (t ascending over calls). */
  at(t: number, i: number): Tagged<T>[] {
    const rows = this.rows
    const from = t - this.spanMs
    while (this.lo < rows.length && rows[this.lo]!.ts < from) this.lo++
    const out: Tagged<T>[] = []
    for (let j = this.lo; j < rows.length && rows[j]!.ts <= t; j++) if (rows[j]!.e <= i) out.push(rows[j]!)
    return out
  }
}
