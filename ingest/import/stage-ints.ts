/**
 * @module
 * Integer cells as the engine reads an import file (stage-sql.ts). Integer columns (`uint`, `int`) are read
 * as text (`t_<name>`) and parsed by `to<Type>OrNull` (`n_<name>`): the engine's integer input reads an
 * empty cell as 0 and wraps a value wider than its type (2^64 reads as 0), where the text parse gives NULL,
 * as it does for `-1` in an unsigned column, `1.5`, `"1"`, ` 1` and `\N` (it takes a leading `+`). Each row
 * carries `_ints`, bit i set when the i-th integer column's cell is refused (an empty optional cell is
 * not); one rule per column reads its bit, in the byte scan's words (csv-cells.ts `intBound`). It costs
 * ~15-20% more CPU than the typed read in the one statement's source; no input setting makes the typed
 * parse strict (docs/benchmarks.md "Import", bench/import/formats.ts `custom_text_ints`).
 *
 * The one statement that reads a file itself (stage-sql.ts `directSource`) needs no bit: it only has to
 * fail on a refused cell, the line and reason being found by staging the file. It converts a required
 * integer cell with `accurateCast(t_<name>, '<Type>')`, which throws on exactly the cells `to<Type>OrNull`
 * gives NULL for (empty, past the type's bound, signed in an unsigned column, quoted, spaced, `\N`;
 * test/integration/import-int-cast.test.ts) and gives the same value otherwise, for ~8% less CPU of that
 * read (bench/import/formats.ts `custom_cast_ints`). An optional integer column keeps its parse and bit.
 */
import { intBound, intType } from './csv-cells.js'
import type { CsvColumn, CsvLayout } from './csv-layout.js'

export const isInt = (c: CsvColumn): boolean => c.check === 'uint' || c.check === 'int'
export const intColumns = (layout: CsvLayout): CsvColumn[] => layout.columns.filter(isInt)

/** `c_<name>` as read (`t_<name>`) and parsed (`n_<name>`). */
const named = (staged: string, prefix: 't_' | 'n_'): string => staged.replace(/^c_/, prefix)

/** The text column integer column `c` is read as, for the staged column name `staged`. */
export const intTextName = (staged: string): string => named(staged, 't_')

/** Whether integer column `c` is converted by `accurateCast` when `cast` (a required cell: no bit). */
const casts = (c: CsvColumn, cast: boolean): boolean => cast && !c.optional

/**
 * SELECT items giving the staged column `staged` of integer column `c` (and its parsed `n_` value); `cast`:
 * a required cell is converted by `accurateCast`, which fails the statement on a refused cell.
 */
export function intSelect(c: CsvColumn, staged: string, cast = false): string {
  if (casts(c, cast)) return `accurateCast(${intTextName(staged)}, '${intType(c.chType)}') AS ${staged}`
  const parsed = named(staged, 'n_')
  const value = c.optional ? parsed : `assumeNotNull(${parsed})`
  return `to${intType(c.chType)}OrNull(${intTextName(staged)}) AS ${parsed}, ${value} AS ${staged}`
}

/**
 * The `_ints` SELECT item (`name`: a column's staged name): bit i set when the i-th integer column's cell
 * is refused; the narrowest unsigned type of as many bits (UInt8 for every layout today). With `cast` the
 * columns `accurateCast` converts have no bit (always 0); null when no column has one.
 */
export function intsFlags(layout: CsvLayout, name: (c: CsvColumn) => string, cast = false): string | null {
  const ints = intColumns(layout)
  if (ints.length > 32) throw new Error(`${layout.description}: more than 32 integer columns`)
  if (ints.every((c) => casts(c, cast))) return null
  const bits = ints.flatMap((c, i) => {
    if (casts(c, cast)) return []
    const n = name(c)
    const bad = `${named(n, 'n_')} IS NULL${c.optional ? ` AND ${named(n, 't_')} != ''` : ''}`
    return [`(${bad}) * ${2 ** i}`]
  })
  const width = ints.length <= 8 ? 8 : ints.length <= 16 ? 16 : 32
  return `toUInt${width}(${bits.join(' + ')}) AS _ints`
}

/**
 * The rule of integer column `c` over `_ints`: true when its cell passed; and why it is refused. With
 * `cast` (`staged`: the column's staged name), a column `accurateCast` converts has a rule true of every
 * value of its type, over that value: its conversion is what refuses a cell, and the rule keeps it in the
 * statement (the engine drops an expression nothing reads, like that of a column only the read checks).
 */
export function intRule(layout: CsvLayout, c: CsvColumn, cast?: { staged: string }): { pass: string; reason: string } {
  const bit = 2 ** intColumns(layout).indexOf(c)
  if (!isInt(c) || bit < 1) throw new Error(`${c.name} is not an integer column of ${layout.description}`)
  const bound = intBound(c.check as 'uint' | 'int', c.chType)
  const reason = `${c.name} ${bound.reason}`
  if (cast && casts(c, true))
    return { pass: c.check === 'uint' ? `${cast.staged} >= 0` : `${cast.staged} <= ${bound.max}`, reason }
  return { pass: `bitAnd(_ints, ${bit}) = 0`, reason }
}
