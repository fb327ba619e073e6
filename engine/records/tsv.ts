/**
 * @module
 * TSV encoder for normalized records, in the column order of `fields.ts`. This is the ingest hot path:
 * one encoder per kind, generated once by the shared row encoder (engine/runtime/tsv-row.ts): string
 * fields are escaped per ClickHouse's TabSeparated rules (backslash, tab, newline, carriage return), other
 * fields written as JS converts them (`String(n)` for numbers, which ClickHouse parses exactly), absent
 * optional fields become `\N`.
 */
import { compileTsvRow, type TsvRowEncoder } from '../runtime/tsv-row.js'
import { KIND_SPECS, type FieldSpec } from './fields.js'
import type { RecordKind, RecordOf } from './types.js'

const columnOf = (f: FieldSpec) => ({
  name: f.name,
  cell: f.type === 'string' ? ('text' as const) : ('raw' as const),
  nullable: f.optional === true
})

const ENCODERS: { [K in RecordKind]?: TsvRowEncoder<RecordOf<K>> } = {}

function encoderFor<K extends RecordKind>(kind: K): TsvRowEncoder<RecordOf<K>> {
  let enc = ENCODERS[kind] as TsvRowEncoder<RecordOf<K>> | undefined
  if (!enc) {
    enc = compileTsvRow<RecordOf<K>>(KIND_SPECS[kind].fields.map(columnOf), '\n')
    ;(ENCODERS as Record<string, unknown>)[kind] = enc
  }
  return enc
}

/** Encodes records of one kind to TSV text (one line per record, trailing newline). */
export function encodeTsv<K extends RecordKind>(kind: K, records: readonly RecordOf<K>[]): string {
  const enc = encoderFor(kind)
  let out = ''
  for (let i = 0; i < records.length; i++) out += enc(records[i] as RecordOf<K>)
  return out
}
