/**
 * @module
 * The declared columns of an export and the outer SELECT that gives every format the same values: the
 * caller's SQL becomes a subquery, each column is cast to its declared export type, in declared order.
 * Timestamps leave as Int64 epoch milliseconds (UTC) in every format, so a CSV, a Parquet and an HDF5
 * export of one query carry identical numbers.
 */

export type ExportColumnType =
  'DateTime64' | 'Float64' | 'Float32' | 'Int64' | 'Int32' | 'UInt64' | 'UInt32' | 'UInt8' | 'String'

export interface ExportColumn {
  /** column name in the caller's SQL and in the exported file */
  readonly name: string
  /**
   * Declared type. `DateTime64` means the SQL yields a DateTime or DateTime64; it is exported as Int64
   * epoch milliseconds. A column that already holds epoch ms as an integer is `Int64`/`UInt64`.
   */
  readonly type: ExportColumnType
  /** the column may hold NULL (e.g. a bucket where nothing was recorded). @default false */
  readonly nullable?: boolean
}

/** The ClickHouse type each declared type is exported as (before Nullable). */
const EXPORTED_TYPE: Readonly<Record<ExportColumnType, string>> = {
  DateTime64: 'Int64',
  Float64: 'Float64',
  Float32: 'Float32',
  Int64: 'Int64',
  Int32: 'Int32',
  UInt64: 'UInt64',
  UInt32: 'UInt32',
  UInt8: 'UInt8',
  String: 'String'
}

/** A ClickHouse identifier in backticks. */
export function quoteIdent(name: string): string {
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`'
}

/** The ClickHouse type of the column as exported, e.g. `Nullable(Int64)` for a nullable timestamp. */
export function exportedType(c: ExportColumn): string {
  const t = EXPORTED_TYPE[c.type]
  return c.nullable ? `Nullable(${t})` : t
}

/** Throws on an empty column list, an empty or repeated name, or an unknown type (a caller's bug). */
export function validateColumns(columns: readonly ExportColumn[]): void {
  if (columns.length === 0) throw new TypeError('export needs at least one column')
  const seen = new Set<string>()
  for (const c of columns) {
    if (c.name === '' || /[\0\n\r]/.test(c.name))
      throw new TypeError(`export column name ${JSON.stringify(c.name)} is not allowed`)
    if (seen.has(c.name)) throw new TypeError(`export column ${c.name} appears twice`)
    if (!Object.hasOwn(EXPORTED_TYPE, c.type))
      throw new TypeError(`export column ${c.name} has unknown type ${String(c.type)}`)
    seen.add(c.name)
  }
}

function castExpr(c: ExportColumn): string {
  const src = `src.${quoteIdent(c.name)}`
  // DateTime, DateTime64 of any precision -> ms since epoch; toDateTime64 of a DateTime64(3) is a no-op
  if (c.type === 'DateTime64') return `toUnixTimestamp64Milli(toDateTime64(${src}, 3, 'UTC'))`
  return `CAST(${src} AS ${exportedType(c)})`
}

/**
 * `SELECT <casts> FROM (<sql>) AS src`. Source columns are qualified with `src.` so an alias equal to a
 * source name is not read as a reference to itself. The subquery's ORDER BY is kept: the outer query is
 * a plain projection.
 */
export function exportSelect(sql: string, columns: readonly ExportColumn[]): string {
  const inner = sql.trim().replace(/;\s*$/, '')
  const list = columns.map((c) => `${castExpr(c)} AS ${quoteIdent(c.name)}`).join(', ')
  return `SELECT ${list} FROM (${inner}) AS src`
}

/** The table structure for `file(path, format, structure)`: `` `ts` Int64, `p` Nullable(Float64) ``. */
export function tableStructure(columns: readonly ExportColumn[]): string {
  return columns.map((c) => `${quoteIdent(c.name)} ${exportedType(c)}`).join(', ')
}
