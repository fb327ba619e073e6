/**
 * @module
 * A row object as one TabSeparated line, the format of the outbox's journal segments (TSV: cheap to write
 * here and to parse in the engine, which reads the segment files itself).
 */
import { escapeTsv } from '../records/tsv.js'

/** One value as TSV text: null is `\N`, numbers as JS writes them (ClickHouse reads them back exactly). */
function tsvValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N'
  if (typeof v === 'number') return String(v)
  if (typeof v === 'boolean') return v ? '1' : '0'
  return escapeTsv(String(v))
}

/** `row`'s values in `columns` order, tab-separated, without the line end. */
export function tsvLine(row: Readonly<Record<string, unknown>>, columns: readonly string[]): string {
  let line = tsvValue(row[columns[0]!])
  for (let i = 1; i < columns.length; i++) line += '\t' + tsvValue(row[columns[i]!])
  return line
}
