/**
 * @module
 * A row object as one TabSeparated line, the format of the outbox's journal segments (TSV: cheap to write
 * here and to parse in the engine, which reads the segment files itself). `tsvEncoder` is the journal's
 * hot path: one encoder per column list, generated once, reading each column as a named property (a generic
 * loop looks each up by a key that changes per column); the tests check it against that loop
 * (test/helpers/webhooks/tsv-line.ts, test/unit/webhook-fast-paths.test.ts).
 */
import { escapeTsv } from '../records/tsv.js'

/** One value as TSV text: null is `\N`, numbers as JS writes them (ClickHouse reads them back exactly). */
export function tsvValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N'
  if (typeof v === 'number') return String(v)
  if (typeof v === 'boolean') return v ? '1' : '0'
  return escapeTsv(String(v))
}

/**
 * `row`'s values in `columns` order (each as `tsvValue`), tab-separated, without the line end, as a function
 * of `row` compiled for these columns.
 */
export type TsvEncoder = (row: Readonly<Record<string, unknown>>) => string

export function tsvEncoder(columns: readonly string[]): TsvEncoder {
  if (columns.length === 0) throw new Error('tsvEncoder: no columns')
  // generated once per table from its static column list (JSON.stringify quotes each name: no code
  // reaches the source but those names)
  const body = columns.map((c) => `v(r[${JSON.stringify(c)}])`).join(" + '\\t' + ")
  return new Function('v', `return (r) => ${body}`)(tsvValue) as TsvEncoder
}
