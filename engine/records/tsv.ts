/**
 * @module
 * TSV encoder for normalized records, in the column order of `fields.ts`. This is the ingest hot path:
 * one encoder per kind, generated once by the shared row encoder (engine/runtime/tsv-row.ts): string
 * fields are escaped per ClickHouse's TabSeparated rules (backslash, tab, newline, carriage return), other
 * fields written as JS converts them (`String(n)` for numbers, which ClickHouse parses exactly), absent
 * optional fields become `\N`.
 */
import { compileTsvRow, type TsvRowEncoder } from '../runtime/tsv-row.js'
import { KIND_SPECS, type FieldSpec, type ReceiveStamp } from './fields.js'
import type { RecordKind, RecordOf } from './types.js'

const columnOf = (f: FieldSpec) => ({
  name: f.name,
  cell: f.type === 'string' ? ('text' as const) : ('raw' as const),
  nullable: f.optional === true
})

/** `ts` once more, as the last cell: the `ingest_ts` of `event` stamps (fields.ts `columnsOf`). */
const EVENT_RECEIVE: ReturnType<typeof columnOf> = { name: 'ts', cell: 'raw', nullable: false }

const ENCODERS = new Map<string, TsvRowEncoder<never>>()

function encoderFor<K extends RecordKind>(kind: K, stamp: ReceiveStamp): TsvRowEncoder<RecordOf<K>> {
  const key = `${kind}:${stamp}`
  let enc = ENCODERS.get(key) as TsvRowEncoder<RecordOf<K>> | undefined
  if (!enc) {
    const cols = KIND_SPECS[kind].fields.map(columnOf)
    enc = compileTsvRow<RecordOf<K>>(stamp === 'event' ? [...cols, EVENT_RECEIVE] : cols, '\n')
    ENCODERS.set(key, enc)
  }
  return enc
}

/**
 * Encodes records of one kind to TSV text (one line per record, trailing newline), in the column order of
 * `columnsOf(kind, stamp)`.
 */
export function encodeTsv<K extends RecordKind>(
  kind: K,
  records: readonly RecordOf<K>[],
  stamp: ReceiveStamp = 'store'
): string {
  const enc = encoderFor(kind, stamp)
  let out = ''
  for (let i = 0; i < records.length; i++) out += enc(records[i] as RecordOf<K>)
  return out
}
