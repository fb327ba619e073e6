/**
 * The plain form of the webhook journal's TSV rows (engine/runtime/tsv-row.ts): `row`'s values in
 * `columns` order, each as `tsvValue`, tab-separated, without the line end. The compiled `tsvEncoder` is
 * checked against it.
 */
import { tsvValue } from '../../../engine/runtime/tsv-row.js'

export function tsvLine(row: Readonly<Record<string, unknown>>, columns: readonly string[]): string {
  let line = tsvValue(row[columns[0]!])
  for (let i = 1; i < columns.length; i++) line += '\t' + tsvValue(row[columns[i]!])
  return line
}
