/**
 * @module
 * TSV encoder for normalized records, in the column order of `fields.ts`. This is the ingest hot path:
 * one specialised encoder per kind is generated once (no per-field dispatch per row), strings are escaped
 * per ClickHouse's TabSeparated rules (backslash, tab, newline), absent optional fields become `\N`.
 * Numbers are written with JS `String(n)`, which ClickHouse parses exactly (round-trip Float64).
 */
import { KIND_SPECS, type FieldSpec } from './fields.js'
import type { RecordKind, RecordOf } from './types.js'

const NEEDS_ESCAPE = /[\\\t\n\r]/

/** Escapes one string value for TabSeparated. */
export function escapeTsv(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
}

type RowEncoder<K extends RecordKind> = (r: RecordOf<K>) => string

function fieldExpr(f: FieldSpec): string {
  const v = `r[${JSON.stringify(f.name)}]`
  const plain = f.type === 'string' ? `esc(${v})` : `${v}`
  return f.optional ? `(${v} == null ? '\\\\N' : ${plain})` : plain
}

function compileRowEncoder<K extends RecordKind>(kind: K): RowEncoder<K> {
  const body = KIND_SPECS[kind].fields.map(fieldExpr).join(" + '\\t' + ")
  // Generated once per kind at module load from the static field table above; no user input reaches it.
  return new Function('esc', `return (r) => ${body} + '\\n'`)(escapeTsv) as RowEncoder<K>
}

const ENCODERS: { [K in RecordKind]?: RowEncoder<K> } = {}

function encoderFor<K extends RecordKind>(kind: K): RowEncoder<K> {
  let enc = ENCODERS[kind] as RowEncoder<K> | undefined
  if (!enc) {
    enc = compileRowEncoder(kind)
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
