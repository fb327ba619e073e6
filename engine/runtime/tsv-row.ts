/**
 * @module
 * The one TSV row encoder of the service (ClickHouse TabSeparated): the escape of a text cell (backslash,
 * tab, newline, carriage return; engine/whales/.. and the byte buffer write the same bytes), `\N` for
 * NULL, numbers as JS `String(n)` (ClickHouse parses them back exactly, round-trip Float64), and one
 * encoder per column list, generated once (no per-cell dispatch per row: each column is read as a named
 * property). A column says how its cell is written:
 *
 * - `text`: a string, escaped;
 * - `raw`: a value written as JS converts it (numbers, booleans as `true`/`false`, enum literals that need
 *   no escape);
 * - `value`: any value by its runtime type (`tsvValue`: null `\N`, number, boolean `1`/`0`, else escaped text);
 * - `nullable`: null or undefined is `\N` (with `text` or `raw`; `value` has it already).
 *
 * Users: the normalized records (engine/records/tsv.ts: `text` for string fields, `raw` for the rest,
 * `nullable` for optional ones), the options metrics rows (ingest/derive/options-metrics.ts) and the webhook
 * outbox's journal rows (`value` for every column).
 */

const NEEDS_ESCAPE = /[\\\t\n\r]/

/** Escapes one string value for TabSeparated. */
export function escapeTsv(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
}

/** One value as TSV text: null is `\N`, numbers as JS writes them (ClickHouse reads them back exactly). */
export function tsvValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N'
  if (typeof v === 'number') return String(v)
  if (typeof v === 'boolean') return v ? '1' : '0'
  return escapeTsv(String(v))
}

export interface TsvColumn {
  readonly name: string
  readonly cell: 'text' | 'raw' | 'value'
  /** null or undefined is `\N` */
  readonly nullable?: boolean
}

/** A row (an object with the columns as properties) as one TSV line. */
export type TsvRowEncoder<R> = (row: R) => string

/**
 * The encoder of rows with `columns`, in that order, tab-separated, followed by `lineEnd` ('\n', or '' when
 * the caller joins lines). Generated once per column list from its names (JSON.stringify quotes each: no
 * code reaches the source but those names).
 */
export function compileTsvRow<R>(columns: readonly TsvColumn[], lineEnd: '' | '\n'): TsvRowEncoder<R> {
  if (columns.length === 0) throw new Error('compileTsvRow: no columns')
  const cell = (c: TsvColumn): string => {
    const v = `r[${JSON.stringify(c.name)}]`
    const plain = c.cell === 'text' ? `esc(${v})` : c.cell === 'value' ? `val(${v})` : v
    return c.nullable && c.cell !== 'value' ? `(${v} == null ? '\\\\N' : ${plain})` : plain
  }
  const cells = columns.map(cell).join(" + '\\t' + ")
  // one cell without a line end: '' + makes the line a string whatever the cell's value
  const body = lineEnd === '\n' ? `${cells} + '\\n'` : columns.length === 1 ? `'' + ${cells}` : cells
  return new Function('esc', 'val', `return (r) => ${body}`)(escapeTsv, tsvValue) as TsvRowEncoder<R>
}

/** `row`'s values in `columns` order, each as `tsvValue`, tab-separated, without the line end. */
export type TsvEncoder = TsvRowEncoder<Readonly<Record<string, unknown>>>

/** The encoder of rows of any values with `columns` (each cell a `value`), without the line end. */
export function tsvEncoder(columns: readonly string[]): TsvEncoder {
  if (columns.length === 0) throw new Error('tsvEncoder: no columns')
  return compileTsvRow(
    columns.map((name) => ({ name, cell: 'value' as const })),
    ''
  )
}
