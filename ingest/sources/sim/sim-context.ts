/**
 * @module
 * What every emitter of the simulated market shares: the mixed seed, the universe and the price path.
 * An emitter writes the records of one kind family with ts in [lo, hi) into a sink; it must give the same
 * records for a window whether or not the window is split, which holds because every draw is keyed by
 * (seed, stream, slot) and every record is kept or dropped by its own ts alone.
 */
import type { PricePath } from './price-path.js'
import type { RecordSink } from './record-sink.js'
import type { Universe } from './universe.js'

export type SimMode = 'backfill' | 'live'

export interface SimContext {
  /** 32-bit mix of the user's seed */
  readonly seed: number
  readonly universe: Universe
  readonly path: PricePath
}

export interface Emitter {
  /** push every record with lo <= ts < hi; lo and hi lie within one generation block */
  emit(lo: number, hi: number, mode: SimMode, sink: RecordSink): void
}
