/**
 * @module
 * Groups normalized records by kind and encodes each group into one TSV chunk for its raw table, plus the
 * derived rows (options metrics) that come from them. `stamp` says how the rows' receive time is set
 * (engine/records/fields.ts `ReceiveStamp`): by the store on arrival unless told otherwise.
 */
import { KIND_SPECS, columnsOf, type ReceiveStamp } from '../engine/records/fields.js'
import { encodeTsv } from '../engine/records/tsv.js'
import type { NormalizedRecord, RecordKind, RecordOf } from '../engine/records/types.js'
import { makeChunk, type EncodedChunk } from './encoded-chunk.js'

export function encodeRecords(
  records: readonly NormalizedRecord[],
  bulk: boolean,
  stamp: ReceiveStamp = 'store'
): EncodedChunk[] {
  const groups = new Map<RecordKind, NormalizedRecord[]>()
  for (const r of records) {
    let g = groups.get(r.kind)
    if (!g) groups.set(r.kind, (g = []))
    g.push(r)
  }
  const chunks: EncodedChunk[] = []
  for (const [kind, group] of groups) {
    const tsv = encodeTsv(kind, group as RecordOf<typeof kind>[], stamp)
    chunks.push(makeChunk(KIND_SPECS[kind].table, columnsOf(kind, stamp), group.length, tsv, bulk))
  }
  return chunks
}
