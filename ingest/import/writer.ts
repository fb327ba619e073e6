/**
 * @module
 * Writes the checked slices of one file: per slice and target one `INSERT INTO <table> SELECT ... FROM
 * file(<slice>, CSV)`. ClickHouse parses the CSV itself (several times faster than building insert
 * payloads in JS, bench/import) and the rows reach the candle and aggregate views like any insert.
 *
 * All or nothing, for files of any size: every line of the file has been checked (csv-scan.ts) and split
 * into slice files before the first statement runs, so a bad line, a truncated archive or a checksum
 * mismatch writes nothing. ClickHouse squashes an INSERT ... SELECT into blocks of
 * `min_insert_block_size_rows` (1,048,449 by default) and slices stay below that (slices.ts), so a slice is
 * one block, written whole or not at all (forcing larger blocks measured 4x slower), with a dedup token built from the file's SHA-256, the table and the slice's first hour: a
 * statement retried after a failure is a no-op for what it already wrote. What the store already holds is
 * skipped (coverage.ts), so importing the same file again writes nothing.
 */
import type { Params, Store } from '../../engine/store/store.js'
import { DEDUP_INSERT_SETTINGS, FAST_INSERT_SETTINGS } from '../../engine/store/store.js'
import { coverageFilter } from './coverage.js'
import type { CsvLayout, ImportTarget } from './csv-layout.js'
import type { Slice } from './slices.js'

/** A string literal (paths and the CSV structure are ours, but a DATA_DIR may hold any character). */
export function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

/** The `file()` structure: every CSV column as `c_<name> <type>`. */
export function csvStructure(layout: CsvLayout): string {
  return layout.columns.map((c) => `c_${c.name.replace(/\W/g, '_')} ${c.chType}`).join(', ')
}

function settings(token: string): string {
  const all: Record<string, string | number> = {
    ...DEDUP_INSERT_SETTINGS,
    ...FAST_INSERT_SETTINGS,
    insert_deduplication_token: token
  }
  return Object.entries(all)
    .map(([k, v]) => `${k} = ${typeof v === 'string' ? sqlString(v) : v}`)
    .join(', ')
}

/** The statement writing `slice` into `target`. */
export function insertStatement(layout: CsvLayout, target: ImportTarget, slice: Slice, token: string): string {
  const filters = [target.where, coverageFilter(target.coverage, target.table)].filter(Boolean).join('\n  AND ')
  return [
    `INSERT INTO ${target.table} (${target.columns.join(', ')})`,
    `SELECT ${target.outer ?? target.columns.join(', ')}`,
    `FROM (SELECT ${target.inner}`,
    `  FROM file(${sqlString(slice.file)}, 'CSV', ${sqlString(csvStructure(layout))}))`,
    `WHERE ${filters}`,
    target.groupBy ? `GROUP BY ${target.groupBy}` : '',
    `SETTINGS ${settings(token)}`
  ]
    .filter(Boolean)
    .join('\n')
}

export interface WriteProgress {
  (done: number, total: number): void
}

/** Writes every slice into every target of the layout, in time order. */
export async function writeSlices(
  store: Store,
  layout: CsvLayout,
  slices: readonly Slice[],
  params: Params,
  sha256: string,
  onProgress?: WriteProgress
): Promise<void> {
  const total = slices.length * layout.targets.length
  let done = 0
  for (const slice of slices) {
    const range = { from_ms: slice.minMs, to_ms: slice.maxMs }
    for (const target of layout.targets) {
      const token = `import:${sha256.slice(0, 32)}:${target.table}:${slice.startHour}`
      await store.command(insertStatement(layout, target, slice, token), { ...params, ...range })
      onProgress?.(++done, total)
    }
  }
}
