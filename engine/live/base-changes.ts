/**
 * @module
 * Which bases' confirmation inputs changed: a change mark per base asset, so a cached answer of one base is
 * not recomputed for records of another (engine/live/confirm-answers.ts). A mark changes whenever a record
 * that feeds the base's confirmation arrives (trades, funding, open interest, long/short ratios and
 * liquidations of its markets, its on-chain metrics, whale transfers of its token or a wrapped form of it)
 * and for every base at a rebuild of the live state. Option quotes feed no confirmation input.
 */
import type { NormalizedRecord } from '../records/types.js'
import { whaleBase } from './whale-window.js'

/** Bases tracked at most (every listed base and whale token fits); beyond it every mark changes at once. */
const BASES_MAX = 10_000

/** The base whose confirmation inputs a record feeds, or null. */
export function confirmBaseOf(r: NormalizedRecord): string | null {
  switch (r.kind) {
    case 'trade':
    case 'funding':
    case 'open_interest':
    case 'long_short':
    case 'liquidation':
      return r.base
    case 'onchain_metric':
      return r.asset
    case 'whale_transfer':
      return whaleBase(r.token)
    default:
      return null
  }
}

export class BaseChanges {
  /** the last mark handed out; marks only grow */
  private counter = 0
  /** mark of the last change of every base (a rebuild, or the map reaching BASES_MAX) */
  private allAt = 0
  private readonly marks = new Map<string, number>()

  /** Notes the bases the records feed. */
  applied(records: readonly NormalizedRecord[]): void {
    let mark = 0
    for (const r of records) {
      const base = confirmBaseOf(r)
      if (base === null) continue
      // one mark per batch: every base of the batch changed at the same moment
      if (mark === 0) mark = ++this.counter
      if (!this.marks.has(base) && this.marks.size >= BASES_MAX) this.all()
      this.marks.set(base, mark)
    }
  }

  /** Every base changed (the live state was rebuilt from the store). */
  all(): void {
    this.marks.clear()
    this.allAt = ++this.counter
  }

  /** The base's change mark: equal marks mean no input of the base changed in between. */
  of(base: string): number {
    const m = this.marks.get(base)
    return m === undefined || m < this.allAt ? this.allAt : m
  }
}
