/**
 * @module
 * The SQL of an import's staging table: ClickHouse's own CSV input reads the file into it with strict
 * input settings (a line that does not parse as the layout's columns fails the load), and one query over
 * it checks every rule of the layout (the rules of csv-cells.ts and csv-scan.ts, in SQL) before anything
 * reaches the raw tables. Columns: `_row` (0-based data line, file order), `_ms` (the row time, epoch ms)
 * and every CSV column as `c_<name>` with its `chType`, the names the layouts' `inner` selects read. A file
 * written without a staging table (direct-file.ts) is read by its one statement through `directSource`:
 * the same columns, the same rules, applied to every row while the statement reads.
 */
import { settingsClause } from '../../engine/store/sql-text.js'
import { MICROS_FROM, type CellCheck, type CsvColumn, type CsvLayout } from './csv-layout.js'
import { MIN_FUNDING_STEP_MS } from './funding-interval.js'
import { intColumns, intRule, intSelect, intsFlags, intTextName, isInt } from './stage-ints.js'

/** Latest accepted row time: 2100-01-01, epoch ms (as csv-scan.ts). */
const MAX_TS_MS = 4_102_444_800_000

/**
 * Staged files up to this many decompressed bytes are held in a `Memory` table (parsed once, no
 * compression); larger ones go to a `MergeTree` on the data directory's disk, so a file of any size is
 * checked without holding it in memory (measured ~1.7x the CPU of the Memory table to load).
 */
export const STAGE_IN_MEMORY_MAX_BYTES = 512 * 1024 * 1024

/** The same words as the byte checks' (csv-cells.ts), so the engine's verdict reads like the scan's. */
const REASON: Readonly<Record<CellCheck, string>> = {
  uint: 'must be a non-negative integer', // integers: csv-cells.ts `intBound`, with their type's bound
  int: 'must be an integer',
  udec: 'must be a non-negative number',
  dec: 'must be a number',
  bool: 'must be true or false',
  word: 'must be a non-empty value without quotes',
  side: 'must be buy or sell',
  datetime: 'must be a UTC time YYYY-MM-DD HH:MM:SS',
  any: 'quoted cells are not supported'
}

export const columnName = (c: CsvColumn): string => `c_${c.name.replace(/\W/g, '_')}`

/**
 * Whether the layout has optional cells. Its file is read with empty cells as NULL; required number
 * columns other than integers are then read as Nullable too, so an empty required cell is caught
 * (`_missing`) instead of becoming 0. A layout without optional cells is read with
 * `input_format_csv_empty_as_default = 0`: an empty number cell fails the load (integers: stage-ints.ts).
 */
const hasOptional = (layout: CsvLayout): boolean => layout.columns.some((c) => c.optional)
const nullableRead = (c: CsvColumn): boolean => !c.optional && c.chType !== 'String' && !isInt(c)

/** How a column is read from the file: its name there and its type. `typed`: integers read as their type. */
function readAs(layout: CsvLayout, c: CsvColumn, typed: boolean): { name: string; type: string } {
  const n = columnName(c)
  if (isInt(c) && !typed) return { name: intTextName(n), type: 'String' }
  if (hasOptional(layout) && nullableRead(c)) return { name: n.replace(/^c_/, 'r_'), type: `Nullable(${c.chType})` }
  return { name: n, type: c.chType }
}

/** The `file()` structure the CSV is read with. */
function readStructure(layout: CsvLayout, typed: boolean): string {
  return layout.columns
    .map((c) => readAs(layout, c, typed))
    .map((r) => `${r.name} ${r.type}`)
    .join(', ')
}

/** The read columns as the staged `c_` columns (and the integers' `n_`, stage-ints.ts), in a SELECT list. */
function readSelect(layout: CsvLayout, c: CsvColumn, typed: boolean): string {
  const n = columnName(c)
  const r = readAs(layout, c, typed)
  if (r.name === n) return n
  return r.type === 'String' ? intSelect(c, n) : `assumeNotNull(${r.name}) AS ${n}`
}

/** The row time in epoch ms, over the staged columns (as csv-scan.ts reads it). */
function timeMs(layout: CsvLayout): string {
  const t = columnName(layout.columns[layout.timeColumn]!)
  switch (layout.time) {
    case 'epoch':
      return `toInt64(if(${t} >= ${MICROS_FROM}, intDiv(${t}, 1000), ${t}))`
    case 'micros':
      return `toInt64(intDiv(${t}, 1000))`
    case 'datetime':
      return `toUnixTimestamp64Milli(toDateTime64OrZero(${t}, 3, 'UTC'))`
  }
}

/**
 * The cell rules both inputs share (the staging table's `CSV`, the one statement's `CustomSeparated` with
 * the CSV rule): no error tolerated, a `\N` cell fails a column that is not Nullable (where it would read
 * as 0), an empty cell fails unless the layout has optional cells, quotes are data.
 */
function strictCells(layout: CsvLayout): Readonly<Record<string, number>> {
  return {
    input_format_allow_errors_num: 0,
    input_format_allow_errors_ratio: 0,
    input_format_null_as_default: 0,
    input_format_csv_empty_as_default: hasOptional(layout) ? 1 : 0,
    format_csv_allow_double_quotes: 0,
    format_csv_allow_single_quotes: 0
  }
}

/**
 * Strict CSV input: no error tolerated, quotes are data (a quoted cell fails a number's parse and is seen
 * by the string checks), no trimming, no header detection, a fixed number of columns.
 */
export function inputSettings(layout: CsvLayout, header: boolean): Readonly<Record<string, number>> {
  return {
    ...strictCells(layout),
    input_format_csv_trim_whitespaces: 0,
    input_format_csv_allow_variable_number_of_columns: 0,
    input_format_csv_detect_header: 0,
    input_format_csv_skip_first_lines: header ? 1 : 0
  }
}

export interface StageSource {
  /** the staged CSV (plain, or gzip when `gzip`) */
  readonly file: string
  readonly gzip: boolean
  /** the first line is a header (checked by the caller) */
  readonly header: boolean
  /** decompressed size, bytes (or an estimate): picks the table engine */
  readonly bytes: number
}

/**
 * Whether the staging table keeps column `c`: a target reads it, a rule checks it, or it names the market,
 * the row time or the funding time. The load parses every column whether kept or not (an unsigned integer
 * column that is never read, like aggTrades' `first_trade_id`, is checked by its parse alone, tested), so
 * a column only the parse checks costs no space in the staging table.
 */
function kept(layout: CsvLayout, c: CsvColumn): boolean {
  const i = layout.columns.indexOf(c)
  const n = columnName(c)
  const read = new RegExp(`\\b${n}\\b`)
  const m = layout.marketColumns
  return (
    i === layout.timeColumn ||
    i === layout.fundingTimeColumn ||
    (m !== undefined && (i === m.exchange || i === m.symbol)) ||
    cellCheck(c) !== '1' ||
    layout.targets.some((t) => [t.inner, t.outer, t.where, t.groupBy].some((x) => x !== undefined && read.test(x)))
  )
}

/**
 * The SELECT reading `src` as the staging table's columns: `_row` (with `withRow`), `_ms`, `_missing` (layouts
 * with optional cells), `_ints` (layouts with integer columns, unless `typed`) and the kept `c_` columns.
 * Its input settings are `inputSettings`. `typed` reads the integers as their type, unchecked (`csvSelect`).
 */
function stagedSelect(
  layout: CsvLayout,
  src: StageSource,
  quote: (s: string) => string,
  withRow: boolean,
  format = 'CSV',
  typed = false
): string {
  const opt = hasOptional(layout)
  const ints = !typed && intColumns(layout).length > 0
  const read = layout.columns.map((c) => readSelect(layout, c, typed))
  const nulls = layout.columns.filter((c) => readAs(layout, c, typed).name.startsWith('r_'))
  const missing = nulls.map((c) => `${readAs(layout, c, typed).name} IS NULL`).join(' OR ') || '0'
  const args = [quote(src.file), quote(format), quote(readStructure(layout, typed)), ...(src.gzip ? [`'gzip'`] : [])]
  const names = layout.columns
    .filter((c) => kept(layout, c))
    .map(columnName)
    .join(', ')
  const flags = [...(opt ? [`toUInt8(${missing}) AS _missing`] : []), ...(ints ? [intsFlags(layout, columnName)] : [])]
  return [
    `SELECT ${withRow ? '_row, ' : ''}${timeMs(layout)} AS _ms, ${opt ? '_missing, ' : ''}${ints ? '_ints, ' : ''}${names}`,
    `FROM (SELECT ${withRow ? '_row_number AS _row, ' : ''}${[...read, ...flags].join(', ')}`,
    `  FROM file(${args.join(', ')}))`
  ].join('\n')
}

/** The statement creating and filling the staging table `table` from `src`, as one statement. */
export function loadStatement(
  layout: CsvLayout,
  table: string,
  src: StageSource,
  quote: (s: string) => string
): string {
  const engine = src.bytes <= STAGE_IN_MEMORY_MAX_BYTES ? 'Memory' : 'MergeTree ORDER BY tuple()'
  return [
    `CREATE TABLE ${table} ENGINE = ${engine} AS`,
    stagedSelect(layout, src, quote, true),
    settingsClause(inputSettings(layout, src.header)).trimStart()
  ].join('\n')
}

/**
 * The file read as the staging table's columns (`_ms` and the kept `c_` columns), with no rule checked: the
 * engine's own CSV input and the layout's conversions alone, integers read as their type. The import benchmark's `ceiling_csv` reference
 * reads the file through it; imports use `directSource` or the staging table.
 */
export function csvSelect(layout: CsvLayout, src: StageSource, quote: (s: string) => string): string {
  return `(${stagedSelect(layout, src, quote, false, 'CSV', true)})`
}

/** The `throwIf` message of `directSource` (the line and rule are found by staging the file). */
const DIRECT_REFUSED =
  'a line of the import file breaks a rule of its layout, lies outside its time range or past its most rows'

/**
 * The input format of `directSource`: `CustomSeparated` with the CSV escaping rule, ',' between cells and a
 * line feed after each row, the header line read as names and ignored. On the archives' shape (unquoted
 * numbers, one word cell last) it parses the same cells as the CSV input for less CPU (docs/import.md
 * "Speed", bench/import/formats.ts). It is stricter: a blank or tab around a number, a missing or extra
 * cell fails the read (a String cell last takes the rest of its line, refused by `directSource`'s comma
 * rule). A file it refuses that the CSV input reads (quoted cells, say) is staged and written from the
 * staging table (run-import.ts). Quotes are data, as in `inputSettings`.
 */
export function directInputSettings(layout: CsvLayout, header: boolean): Readonly<Record<string, string | number>> {
  return {
    ...strictCells(layout),
    format_custom_escaping_rule: 'CSV',
    format_custom_field_delimiter: ',',
    format_custom_row_before_delimiter: '',
    format_custom_row_after_delimiter: '\n',
    format_custom_row_between_delimiter: '',
    format_custom_result_before_delimiter: '',
    format_custom_result_after_delimiter: '',
    input_format_custom_allow_variable_number_of_columns: 0,
    input_format_custom_detect_header: 0,
    input_format_custom_skip_trailing_empty_lines: 0,
    ...(header && { input_format_with_names_use_header: 0 })
  }
}

/** The `file()` format of `directSource`, with `directInputSettings`. */
const directFormat = (header: boolean): string => (header ? 'CustomSeparatedWithNames' : 'CustomSeparated')

/**
 * The file read straight into a slice statement, in place of the staging table (writer.ts): the staging
 * table's columns, read with `directInputSettings`, with every rule of `stageRules` and the time range
 * `{from_ms:Int64}..{to_ms:Int64}` (epoch ms) applied to every row by `throwIf` before any row leaves the
 * subquery, and the file's data rows held to `maxRows` (its 0-based `_row` below it: the engine counts the
 * rows while it reads them, so the file is not counted before). A row that breaks one fails the statement
 * while it reads, before its one insert block is formed, so nothing is written; which line and rule is then
 * found by staging the file (run-import.ts). Needs `DIRECT_READ_SETTINGS` and `directInputSettings`.
 */
export function directSource(
  layout: CsvLayout,
  src: StageSource,
  quote: (s: string) => string,
  maxRows: number
): string {
  const last = layout.columns.at(-1)!
  const pass = [
    ...stageRules(layout).map((r) => `(${r.pass})`),
    // the last cell, read to the end of its line, holds no further cell
    ...(last.chType === 'String' ? [`position(${columnName(last)}, ',') = 0`] : []),
    '_ms BETWEEN {from_ms:Int64} AND {to_ms:Int64}',
    `_row < ${Math.trunc(maxRows)}`
  ]
  return [
    `(SELECT * FROM (${stagedSelect(layout, src, quote, true, directFormat(src.header))})`,
    ` WHERE throwIf(NOT (${pass.join(' AND ')}), ${quote(DIRECT_REFUSED)}) = 0)`
  ].join('\n')
}

/**
 * Settings of a statement reading `directSource`: every filter of the statement (the coverage, a target's
 * `where`) stays above the rules' `throwIf` (no predicate push-down, in either analyzer) and every argument
 * of a condition is evaluated for every row (no short-circuit), so each row of the file is checked,
 * including rows the statement then skips.
 */
export const DIRECT_READ_SETTINGS = {
  enable_optimize_predicate_expression: 0,
  query_plan_filter_push_down: 0,
  short_circuit_function_evaluation: 'disable'
} as const

/** The check of one staged cell, true when it passes (csv-cells.ts `checkCell`). */
function cellCheck(c: CsvColumn): string {
  const n = columnName(c)
  const pass = ((): string => {
    switch (c.check) {
      case 'uint':
      case 'int':
        return '1' // the `_ints` rule of stage-ints.ts
      case 'udec':
        return `isFinite(${n}) AND ${n} >= 0`
      case 'dec':
        return `isFinite(${n})`
      case 'bool':
        return `lower(${n}) IN ('true', 'false')`
      case 'word':
        return `${n} != '' AND position(${n}, '"') = 0`
      case 'side':
        return `lower(${n}) IN ('buy', 'sell')`
      case 'datetime':
        return `match(${n}, '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$')`
      case 'any':
        return `position(${n}, '"') = 0`
    }
  })()
  return c.optional && pass !== '1' ? `ifNull(${pass}, 1)` : pass
}

/** One rule of the validation query: rows where `pass` is false break it, and `reason` says why. */
export interface StageRule {
  readonly pass: string
  readonly reason: string
}

/**
 * Every rule a staged row must pass (the load already enforced the column count and the syntax of each
 * number that is not an integer; integers by their `_ints` bit).
 */
export function stageRules(layout: CsvLayout): StageRule[] {
  const rules: StageRule[] = []
  if (hasOptional(layout)) rules.push({ pass: '_missing = 0', reason: 'an empty cell in a required column' })
  for (const c of layout.columns) {
    if (isInt(c)) {
      rules.push(intRule(layout, c))
      continue
    }
    const pass = cellCheck(c)
    if (pass !== '1') rules.push({ pass, reason: `${c.name} ${REASON[c.check]}` })
  }
  const time = layout.columns[layout.timeColumn]!.name
  rules.push({ pass: `_ms > 0 AND _ms <= ${MAX_TS_MS}`, reason: `${time} is not a time between 1970 and 2100` })
  return rules
}

/**
 * The validation query: per rule the first data line (0-based `_row`) that breaks it, or null; with the
 * number of rows and the time range. One pass over the staged rows.
 */
export function validationQuery(layout: CsvLayout, table: string): string {
  const rules = stageRules(layout)
    .map((r, i) => `minIf(_row, NOT (${r.pass})) AS r${i}, countIf(NOT (${r.pass})) AS n${i}`)
    .join(',\n  ')
  return `SELECT count() AS rows, min(_ms) AS min_ms, max(_ms) AS max_ms,\n  ${rules}\nFROM ${table}`
}

/** Rows per hour (epoch hours), with each hour's time range: slices are cut from this (stage-slices.ts). */
export function hoursQuery(table: string): string {
  return `SELECT intDiv(_ms, 3600000) AS hour, count() AS rows, min(_ms) AS min_ms, max(_ms) AS max_ms
FROM ${table} GROUP BY hour ORDER BY hour`
}

/**
 * The markets of a multi-market layout (`exchange\tsymbol`), and with `fundingTimeColumn` each market's
 * smallest step of at least MIN_FUNDING_STEP_MS between consecutive distinct funding times in file order
 * (funding-interval.ts; 0 when there is none).
 */
export function marketsQuery(layout: CsvLayout, table: string): string | null {
  const m = layout.marketColumns
  if (!m) return null
  const ex = columnName(layout.columns[m.exchange]!)
  const sym = columnName(layout.columns[m.symbol]!)
  const f = layout.fundingTimeColumn
  let step = '0'
  if (f !== undefined) {
    const ft = columnName(layout.columns[f]!)
    const ms = layout.time === 'micros' ? `intDiv(${ft}, 1000)` : ft
    // the market's funding times in file order; consecutive equal ones step by 0, under the minimum
    const times = `arrayMap(x -> toInt64(x.2), arraySort(x -> x.1, groupArrayIf((_row, assumeNotNull(${ms})), ${ft} IS NOT NULL)))`
    const steps = `arrayFilter(d -> d >= ${MIN_FUNDING_STEP_MS}, arrayMap(d -> abs(d), arrayDifference(${times})))`
    step = `if(empty(${steps}), 0, arrayMin(${steps}))`
  }
  return `SELECT ${ex} AS exchange, ${sym} AS symbol, ${step} AS min_step FROM ${table} GROUP BY exchange, symbol`
}
