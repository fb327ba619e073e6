/**
 * @module
 * Cuts a live window's records into the pieces the demo market's worker sends one at a time
 * (ingest/workers/sim-worker.ts): the main thread deserializes and applies one piece per event-loop turn,
 * so requests in flight wait for one piece instead of a whole window (docs/benchmarks.md "Hot reads").
 *
 * Invariants: the pieces, concatenated, are the records in their order; a piece holds at most `max` records,
 * except that one currency's quotes of one option chain snapshot are never cut (the live options book folds
 * a snapshot as its quotes arrive: engine/live/options-book.ts; a cut would let a request read half a chain).
 */
import { quoteCurrency } from '../../../engine/options/chain-at.js'
import type { NormalizedRecord } from '../../../engine/records/types.js'

/** Whether `a` and `b` belong to the same currency's option chain snapshot (never in two pieces). */
function sameSnapshot(a: NormalizedRecord, b: NormalizedRecord): boolean {
  return (
    a.kind === 'option_quote' &&
    b.kind === 'option_quote' &&
    a.ts === b.ts &&
    quoteCurrency(a.instrument) === quoteCurrency(b.instrument)
  )
}

/** The pieces of `records` (see the module comment); `max` >= 1. One piece, the array itself, when it fits. */
export function livePieces(
  records: readonly NormalizedRecord[],
  max: number
): readonly (readonly NormalizedRecord[])[] {
  if (records.length <= max) return records.length === 0 ? [] : [records]
  const out: NormalizedRecord[][] = []
  let piece: NormalizedRecord[] = []
  for (const r of records) {
    const prev = piece.at(-1)
    if (piece.length >= max && !(prev !== undefined && sameSnapshot(prev, r))) {
      out.push(piece)
      piece = []
    }
    piece.push(r)
  }
  if (piece.length > 0) out.push(piece)
  return out
}
