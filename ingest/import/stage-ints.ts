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
 */
import { intBound, intType } from './csv-cells.js'
import type { CsvColumn, CsvLayout } from './csv-layout.js'

export const isInt = (c: CsvColumn): boolean => c.check === 'uint' || c.check === 'int'
export const intColumns = (layout: CsvLayout): CsvColumn[] => layout.columns.filter(isInt)

/** `c_<name>` as read (`t_<name>`) and parsed (`n_<name>`). */
const named = (staged: string, prefix: 't_' | 'n_'): string => staged.replace(/^c_/, prefix)

/** The text column integer column `c` is read as, for the staged column name `staged`. */
export const intTextName = (staged: string): string => named(staged, 't_')

/** SELECT items giving the staged column `staged` of integer column `c` (and its parsed `n_` value). */
export function intSelect(c: CsvColumn, staged: string): string {
  const parsed = named(staged, 'n_')
  const value = c.optional ? parsed : `assumeNotNull(${parsed})`
  return `to${intType(c.chType)}OrNull(${intTextName(staged)}) AS ${parsed}, ${value} AS ${staged}`
}

/**
 * The `_ints` SELECT item (`name`: a column's staged name): bit i set when the i-th integer column's cell
 * is refused; the narrowest unsigned type of as many bits (UInt8 for every layout today).
 */
export function intsFlags(layout: CsvLayout, name: (c: CsvColumn) => string): string {
  const ints = intColumns(layout)
  if (ints.length > 32) throw new Error(`${layout.description}: more than 32 integer columns`)
  const bits = ints.map((c, i) => {
    const n = name(c)
    const bad = `${named(n, 'n_')} IS NULL${c.optional ? ` AND ${named(n, 't_')} != ''` : ''}`
    return `(${bad}) * ${2 ** i}`
  })
  const width = ints.length <= 8 ? 8 : ints.length <= 16 ? 16 : 32
  return `toUInt${width}(${bits.join(' + ')}) AS _ints`
}

/** The rule of integer column `c` over `_ints`: true when its cell passed; and why it is refused. */
export function intRule(layout: CsvLayout, c: CsvColumn): { pass: string; reason: string } {
  const bit = 2 ** intColumns(layout).indexOf(c)
  if (!isInt(c) || bit < 1) throw new Error(`${c.name} is not an integer column of ${layout.description}`)
  return {
    pass: `bitAnd(_ints, ${bit}) = 0`,
    reason: `${c.name} ${intBound(c.check as 'uint' | 'int', c.chType).reason}`
  }
}
