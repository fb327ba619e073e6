/**
 * @module
 * Writes a staged file (stage-file.ts): per slice of whole hours and target one `INSERT INTO <table>
 * SELECT ... FROM <staging table>`. The engine parsed and checked the file once when it staged it; these
 * statements only select, convert and filter, and the rows reach the candle and aggregate views like any
 * insert.
 *
 * All or nothing, for files of any size: every line of the file has been read and checked in the staging
 * table before the first statement runs, so a bad line, a truncated archive or a checksum mismatch writes
 * nothing. ClickHouse squashes an INSERT ... SELECT into blocks of `min_insert_block_size_rows` rows or
 * `min_insert_block_size_bytes`, whichever comes first; each statement sets both above any slice
 * (`SLICE_BLOCK_ROWS`, `SLICE_BLOCK_BYTES`, stage-slices.ts), so a slice is one block, with a
 * dedup token built from the file's identity (checksum.ts `fileIdentity`), the table, the slice's hours and the hash of the coverage keys
 * it was judged against: the same statement run again (a journal replay) is a no-op for what it already
 * wrote. What the store already holds is skipped (coverage.ts), so importing the same file again writes
 * nothing. Each statement is journaled before it runs (import-journal.ts) with how to rebuild the staging
 * table from its own link to the staged file: a process killed while ClickHouse wrote the raw part and some
 * view parts has the statement completed at the next start.
 *
 * A file written without a staging table (direct-file.ts) is one statement reading the file itself: the
 * same checks, applied by the statement to every row while it reads (stage-sql.ts `directSource`), fail
 * it before its one block is formed, so a bad line writes nothing there too. Its journal entry holds the
 * link to the file the statement reads, and nothing to load.
 *
 * Statements run with `optimize_on_insert=0` (FAST_INSERT_SETTINGS), not the folding of the pipeline's bulk
 * batches (`InsertBatch.foldKeys`): the import's candle parts are level 0, read through FINAL by exports
 * until the compaction after the import merges them (server/routes/admin-import.ts). Folding was measured
 * for the pipeline's inserts only; the import benchmark's ceiling uses these settings too.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import type { Params, Store } from '../../engine/store/store.js'
import { DEDUP_INSERT_SETTINGS, FAST_INSERT_SETTINGS } from '../../engine/store/store.js'
import { settingsClause, sqlString } from '../../engine/store/sql-text.js'
import { coveragePlan } from './coverage.js'
import type { ImportTarget } from './csv-layout.js'
import type { ImportJournal, JournaledStatement, OpenEntry } from './import-journal.js'
import type { StagedFile } from './stage-file.js'
import { SLICE_BLOCK_BYTES, SLICE_BLOCK_ROWS, type StageSlice } from './stage-slices.js'
import { DIRECT_READ_SETTINGS, directInputSettings, directSource, loadStatement } from './stage-sql.js'

/** A slice's statement writes its rows as one insert block: its dedup token then names exactly that block. */
export const ONE_BLOCK = {
  min_insert_block_size_rows: SLICE_BLOCK_ROWS,
  min_insert_block_size_bytes: SLICE_BLOCK_BYTES,
  max_insert_threads: 1
} as const

/**
 * The statement moving the rows of `source` into `target`, skipping the keys in `keysFile` (the coverage
 * the store had before, coverage.ts). `source` is the staging table, of which `hours` (epoch hours,
 * inclusive) are moved, or the file itself (stage-sql.ts `directSource`, with its `settings`), moved whole.
 * It reads only the staging table or file, the keys file and its parameters, so running it again selects
 * the same rows.
 */
export function insertStatement(
  target: ImportTarget,
  source: string,
  hours: Pick<StageSlice, 'startHour' | 'lastHour'> | null,
  keysFile: string,
  token: string,
  /** the coverage checks that found keys (`coveredParts`); unset: every check */
  parts?: ReadonlySet<number>,
  settings: Readonly<Record<string, string | number>> = {}
): string {
  const coverage = coveragePlan(target.coverage, target.table, sqlString).filter(keysFile, parts)
  const filters = [target.where, coverage].filter(Boolean).join('\n  AND ')
  return [
    `INSERT INTO ${target.table} (${target.columns.join(', ')})`,
    `SELECT ${target.outer ?? target.columns.join(', ')}`,
    `FROM (SELECT ${target.inner}`,
    `  FROM ${source}${hours ? ` WHERE intDiv(_ms, 3600000) BETWEEN ${hours.startHour} AND ${hours.lastHour}` : ''})`,
    `WHERE ${filters}`,
    target.groupBy ? `GROUP BY ${target.groupBy}` : '',
    settingsClause({
      ...DEDUP_INSERT_SETTINGS,
      ...FAST_INSERT_SETTINGS,
      ...ONE_BLOCK,
      ...settings,
      insert_deduplication_token: token
    }).trimStart()
  ]
    .filter(Boolean)
    .join('\n')
}

/**
 * The statement of a file written without a staging table failed (its entry kept, marked failed). Whether
 * the file's read failed (nothing written: a bad line, a row outside the range) or its write is told by
 * staging the file (run-import.ts).
 */
export class DirectWriteFailed extends Error {
  constructor(
    readonly entry: OpenEntry,
    cause: unknown
  ) {
    super('the import statement reading the file failed', { cause })
    this.name = 'DirectWriteFailed'
  }
}

/**
 * Whether the read of a file without a staging table refuses it (a line its rules or its input format do
 * not pass): the direct statement's read alone, writing nothing. A direct statement that failed while the
 * staging table accepts the file failed in its read when this is true (nothing written: the file is written
 * from the staging table), else in its write.
 */
export async function directReadRefuses(store: Store, staged: StagedFile): Promise<boolean> {
  const { layout } = staged.plan
  const slice = staged.slices[0]!
  const source = directSource(layout, staged.source, sqlString, staged.directMaxRows ?? SLICE_BLOCK_ROWS)
  const settings = settingsClause({ ...directInputSettings(layout, staged.source.header), ...DIRECT_READ_SETTINGS })
  return store
    .query(`SELECT count() AS n FROM ${source}${settings}`, { from_ms: slice.minMs, to_ms: slice.maxMs })
    .then(
      () => false,
      () => true
    )
}

/** The statement writing the keys `target` must skip in the slice's range to `keysFile`. */
export function coverageKeysStatement(target: ImportTarget, keysFile: string): string {
  const plan = coveragePlan(target.coverage, target.table, sqlString)
  return `INSERT INTO FUNCTION file(${sqlString(keysFile)}, 'Native', ${sqlString(plan.structure)})\n${plan.select}`
}

/**
 * The numbers of the coverage checks that found keys in `keysFile` (written by `coverageKeysStatement`).
 * The statement leaves out the others' `NOT IN` (always true over an empty set): a fresh import's trades
 * otherwise build 8 key tuples per row for nothing (~6% of the write's CPU, docs/benchmarks.md "Import").
 */
export async function coveredParts(store: Store, target: ImportTarget, keysFile: string): Promise<Set<number>> {
  const rows = await store.query<{ part: number | string }>(
    coveragePlan(target.coverage, target.table, sqlString).partsIn(keysFile)
  )
  return new Set(rows.map((r) => Number(r.part)))
}

/**
 * The statement of one slice and target, reading the entry's link to the staged file: from the staging table
 * (loaded from that link again by a replay), or from the file itself for a file without a staging table.
 */
function sliceStatement(
  staged: StagedFile,
  target: ImportTarget,
  slice: StageSlice,
  entry: OpenEntry,
  token: string,
  parts: ReadonlySet<number>
): Pick<JournaledStatement, 'sql' | 'stage'> {
  const { layout } = staged.plan
  const source = { ...staged.source, file: entry.slice }
  if (staged.table === null) {
    const settings = { ...directInputSettings(layout, source.header), ...DIRECT_READ_SETTINGS }
    return {
      sql: insertStatement(
        target,
        directSource(layout, source, sqlString, staged.directMaxRows ?? SLICE_BLOCK_ROWS),
        null,
        entry.keys,
        token,
        parts,
        settings
      )
    }
  }
  return {
    sql: insertStatement(target, staged.table, slice, entry.keys, token, parts),
    stage: { table: staged.table, load: loadStatement(layout, staged.table, source, sqlString) }
  }
}

export interface WriteProgress {
  (done: number, total: number): void
}

/**
 * Writes every slice of the staged file into every target of its layout, in time order. Each statement is
 * journaled (import-journal.ts) with the coverage it was judged against and how to rebuild the staging
 * table, so a crash mid-statement is completed exactly at the next start.
 */
export async function writeSlices(
  store: Store,
  journal: ImportJournal,
  staged: StagedFile,
  params: Params,
  /** the file's identity (checksum.ts `fileIdentity`), hex */
  fileId: string,
  onProgress?: WriteProgress
): Promise<void> {
  const { layout } = staged.plan
  const total = staged.slices.length * layout.targets.length
  let done = 0
  // the bound market (symbol, base, ... from the file name) is part of every token: two files with the same
  // bytes for different markets are different statements, and must not dedup each other
  const market = crypto.createHash('sha1').update(JSON.stringify(params)).digest('hex').slice(0, 12)
  for (const slice of staged.slices) {
    const bound: Params = { ...params, from_ms: slice.minMs, to_ms: slice.maxMs }
    for (const target of layout.targets) {
      const entry = journal.open(staged.source.file)
      let keys: string
      let parts: Set<number>
      try {
        await store.command(coverageKeysStatement(target, entry.keys), bound)
        keys = crypto.createHash('sha1').update(fs.readFileSync(entry.keys)).digest('hex')
        parts = await coveredParts(store, target, entry.keys)
      } catch (err) {
        journal.discard(entry)
        throw err
      }
      // equal statement, equal token: a replay dedups; a later run judged against other coverage does not
      const token = `import:${fileId.slice(0, 32)}:${market}:${target.table}:${slice.startHour}-${slice.lastHour}:${keys.slice(0, 16)}`
      const stmt = {
        ...sliceStatement(staged, target, slice, entry, token, parts),
        table: target.table,
        token,
        params: bound
      }
      try {
        await journal.run(store, entry, stmt)
      } catch (err) {
        throw staged.table === null ? new DirectWriteFailed(entry, err) : err
      }
      onProgress?.(++done, total)
    }
  }
}
