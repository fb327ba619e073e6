/**
 * @module
 * Parquet on chDB. A streamed chDB query yields each block as its own complete Parquet file, and
 * concatenated files are unreadable, so the export is written to disk by ClickHouse and streamed from
 * there, in two steps:
 *
 * 1. the caller's query streams (`queryStreamBind`, cancellable between blocks) as Native blocks into a
 *    temp file. Native is a plain sequence of blocks, so the concatenation is one valid Native file;
 * 2. `INSERT INTO FUNCTION file('<out>', 'Parquet') SELECT * FROM file('<native>', 'Native', <structure>)`
 *    converts it. That statement carries no bound parameters: chDB runs every parameterized statement
 *    through one process-wide chain for its whole duration, so writing a large Parquet file with
 *    parameters would stall every other parameterized query of the server meanwhile.
 *
 * Both files live in the export tmp dir (absolute paths; chDB resolves a relative `file()` path against
 * the process's working directory) and are removed on success, error and early stop.
 */
import type { Params, Store } from '../store/store.js'
import { tableStructure, type ExportColumn } from './columns.js'
import { EXPORT_FORMATS, NATIVE_SETTINGS, settingsClause, sqlString } from './formats.js'
import { readPieces, removeQuietly, tempPath, writeChunks } from './temp-file.js'

export interface ParquetFileJob {
  /** the export SELECT (already cast to the export columns), without SETTINGS or FORMAT */
  readonly select: string
  readonly params: Params
  readonly columns: readonly ExportColumn[]
  readonly tmpDir: string
  readonly signal: AbortSignal | undefined
}

/**
 * Reading the Native file back keeps its order: one file is one ordered source, and `max_threads = 1`
 * keeps the conversion to a single stream. The Parquet writer still encodes row groups in parallel.
 */
const CONVERT_SETTINGS = { max_threads: 1, engine_file_truncate_on_insert: 1 } as const

export async function* parquetViaFile(store: Store, job: ParquetFileJob): AsyncGenerator<Uint8Array> {
  const native = await tempPath(job.tmpDir, '.native')
  const parquet = await tempPath(job.tmpDir, '.parquet')
  try {
    const blocks = store.stream(job.select + settingsClause(NATIVE_SETTINGS), job.params, 'Native', job.signal)
    await writeChunks(native, blocks, job.signal)
    job.signal?.throwIfAborted()
    await store.command(
      `INSERT INTO FUNCTION file(${sqlString(parquet)}, 'Parquet') ` +
        `SELECT * FROM file(${sqlString(native)}, 'Native', ${sqlString(tableStructure(job.columns))})` +
        settingsClause({ ...EXPORT_FORMATS.parquet.settings, ...CONVERT_SETTINGS })
    )
    await removeQuietly(native)
    yield* readPieces(parquet, job.signal)
  } finally {
    await removeQuietly(native)
    await removeQuietly(parquet)
  }
}
