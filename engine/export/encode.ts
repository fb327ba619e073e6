/**
 * @module
 * The bulk export encoder: (store, SQL, params, format) -> the bytes of one valid file, as an async
 * iterable the HTTP layer pulls at its own pace. Bytes come from ClickHouse's own output formats; this
 * module only re-frames what chDB splits per block (see docs/export-formats.md).
 *
 * Contract for the consumer:
 * - nothing runs until the first `next()`; pull the first chunk before sending the status line, so
 *   failures that happen before any byte (bad SQL, HDF5 over its row cap -> `payload_too_large`) can
 *   still be answered with an error status;
 * - an error after the first chunk is thrown from the iterator: the response must then be aborted (the
 *   bytes sent are not a valid file);
 * - stopping early (`break`, `return()`, the signal) cancels the query and removes temp files (HDF5);
 * - the first chunk is yielded only once the store's query has produced its first block (or ended): no
 *   format writes a header of its own before that. The export route relies on it: once the first chunk is
 *   out, the query has taken its snapshot of parts (export-run.ts, `runCandleExport`).
 */
import type { Params, Store } from '../store/store.js'
import { exportSelect, validateColumns, type ExportColumn } from './columns.js'
import {
  EMBEDDED_PARQUET_SETTINGS,
  EMBEDDED_READ_SETTINGS,
  EXPORT_FORMATS,
  SYNTHETIC_METADATA,
  settingsClause,
  type ExportFormat
} from './formats.js'
import { csvFromBlocks, csvHeader } from './csv-frames.js'
import { jsonArrayFromRows } from './json-frames.js'
import { arrowStreamFromBlocks, arrowStreamWithMetadata } from './arrow-frames.js'
import { parquetFromBlocks } from './parquet-frames.js'
import { parquetWithMetadata } from './parquet-metadata.js'
import { DEFAULT_MAX_HDF5_ROWS, hdf5ViaFile } from './hdf5-file.js'

export { EXPORT_FORMATS, EXPORT_FORMAT_NAMES, SYNTHETIC_METADATA, type ExportFormat } from './formats.js'
export type { ExportColumn, ExportColumnType } from './columns.js'

export interface ExportSpec {
  /** a SELECT without FORMAT; it becomes a subquery, so its ORDER BY decides the row order */
  readonly sql: string
  /** bound `{name:Type}` parameters of `sql` */
  readonly params: Params
  readonly format: ExportFormat
  /** the exported columns, in file order; each must be a column of `sql` */
  readonly columns: readonly ExportColumn[]
  /** where HDF5 temp files go; created if missing */
  readonly tmpDir: string
  /** aborting it cancels the query between blocks and ends the iterator with the abort reason */
  readonly signal?: AbortSignal
  /** HDF5 row cap. @default 1_000_000 */
  readonly maxHdf5Rows?: number
  /**
   * The rows are synthetic (the demo market): Parquet and Arrow files carry `tidewatch.synthetic` = `true`
   * in their metadata, HDF5 files root attribute `synthetic` = 1 (`SYNTHETIC_METADATA`). CSV and JSON have
   * no place for it (the HTTP layer labels the response). @default false: ClickHouse's bytes unchanged
   */
  readonly synthetic?: boolean
}

/** The bytes of one export file, in order. */
export function encodeExport(store: Store, spec: ExportSpec): AsyncIterable<Uint8Array> {
  if (!Object.hasOwn(EXPORT_FORMATS, spec.format)) throw new TypeError(`unknown export format ${String(spec.format)}`)
  validateColumns(spec.columns)
  return encode(store, spec)
}

async function* encode(store: Store, spec: ExportSpec): AsyncGenerator<Uint8Array> {
  const { format, params, columns, signal } = spec
  const info = EXPORT_FORMATS[format]
  const select = exportSelect(spec.sql, columns)
  const synthetic = spec.synthetic === true
  if (format === 'hdf5') {
    const maxRows = spec.maxHdf5Rows ?? DEFAULT_MAX_HDF5_ROWS
    yield* hdf5ViaFile(store, { select, params, columns, tmpDir: spec.tmpDir, signal, maxRows, synthetic })
    return
  }
  const embedded = store.kind === 'chdb'
  const settings = embedded
    ? { ...info.settings, ...EMBEDDED_READ_SETTINGS, ...(format === 'parquet' ? EMBEDDED_PARQUET_SETTINGS : {}) }
    : info.settings
  const chunks = store.stream(select + settingsClause(settings), params, info.clickhouseFormat, signal)
  const metadata = synthetic ? SYNTHETIC_METADATA : undefined
  if (format === 'json') yield* jsonArrayFromRows(chunks)
  else if (format === 'csv' && embedded) yield* csvFromBlocks(chunks, csvHeader(columns.map((c) => c.name)))
  else if (format === 'arrow' && embedded) yield* arrowStreamFromBlocks(chunks, metadata)
  else if (format === 'parquet' && embedded) yield* parquetFromBlocks(chunks, metadata)
  // a ClickHouse server sends one continuous payload (its metadata is added in passing); chDB's
  // JSONEachRow chunks are whole rows
  else if (format === 'arrow' && metadata) yield* arrowStreamWithMetadata(chunks, metadata)
  else if (format === 'parquet' && metadata) yield* parquetWithMetadata(chunks, metadata)
  else yield* chunks
}
