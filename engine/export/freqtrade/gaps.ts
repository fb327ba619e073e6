/**
 * @module
 * The gaps of one exported file: bucket ranges `[start, end)` (epoch ms) inside the exported range that have
 * no row, adjacent buckets merged, as `gaps` is defined for the history endpoints (docs/history.md). Rows
 * arrive in time order, one call per row.
 */
import { fixedMs, plus, type Span } from '../../history/span.js'

export interface Gap {
  /** first missing bucket start, epoch ms */
  readonly start: number
  /** end of the last missing bucket, epoch ms (exclusive) */
  readonly end: number
}

export class GapTracker {
  readonly gaps: Gap[] = []
  /** the next bucket start expected */
  private expected: number
  /** the span in ms when fixed (not months): the per-row step without calendar arithmetic */
  private readonly step: number | null

  /** `fromMs`: first bucket start of the range; `toMs`: its end (exclusive), both aligned to `span` */
  constructor(
    fromMs: number,
    private readonly toMs: number,
    private readonly span: Span
  ) {
    this.expected = fromMs
    this.step = fixedMs(span)
  }

  /** A row at bucket start `ms` (>= the previous one). */
  see(ms: number): void {
    if (ms > this.expected) this.gaps.push({ start: this.expected, end: Math.min(ms, this.toMs) })
    if (ms >= this.expected) this.expected = this.step === null ? plus(ms, this.span) : ms + this.step
  }

  /**
   * `rows` rows from bucket start `firstMs` to `lastMs` (both epoch ms, in order, `firstMs` >= the previous
   * row): seen at once when the span is fixed and they fill every bucket between them (true), else nothing
   * is recorded (false) and the caller passes them to `see` one by one.
   */
  seeRun(firstMs: number, lastMs: number, rows: number): boolean {
    if (this.step === null || firstMs < this.expected || lastMs - firstMs !== (rows - 1) * this.step) return false
    this.see(firstMs)
    this.expected = lastMs + this.step
    return true
  }

  /** The gaps, once every row was seen. */
  finish(): Gap[] {
    if (this.expected < this.toMs) this.gaps.push({ start: this.expected, end: this.toMs })
    this.expected = this.toMs
    return this.gaps
  }
}
