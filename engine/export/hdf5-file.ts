/**
 * @module
 * HDF5 export: one 1-D dataset per column at the file root, in column order, written with h5wasm, then
 * streamed from disk and removed. An HDF5 file cannot go out before it is complete, so the columns are
 * gathered first (columnar, from the query's Native blocks: typed arrays and string arrays, never row
 * objects) and the row count is capped: past the cap the query is cancelled and the export fails with
 * `payload_too_large` before any byte is produced. The cap bounds the memory too (~8 bytes per number,
 * ~40 per string, per row).
 *
 * Layout (docs/export-formats.md): numbers as little-endian Float64/Float32/(U)Int64/(U)Int32/UInt8;
 * timestamps as Int64 epoch ms (attribute `units`); strings as variable-length UTF-8. A nullable column
 * also gets `null_mask/<name>` (UInt8, 1 = NULL); its value at a NULL row is NaN for floats, 0 or ""
 * otherwise. Root attribute `columns` lists the names in order; root attribute `synthetic` (UInt8 1) marks
 * an export of the demo market (absent otherwise).
 */
import { ApiError } from '../errors.js'
import type { Params, Store } from '../store/store.js'
import type { ExportColumn, ExportColumnType } from './columns.js'
import { NATIVE_SETTINGS, settingsClause } from './formats.js'
import { nativeBlocks, type NativeBlock, type NumericValues } from './native-blocks.js'
import { readPieces, removeQuietly, tempPath } from './temp-file.js'

/** Default row cap: the file is built in memory and on disk before its first byte goes out; bigger exports belong in Parquet. */
export const DEFAULT_MAX_HDF5_ROWS = 1_000_000
const NULL_MASK_GROUP = 'null_mask'
const TIMESTAMP_UNITS = 'milliseconds since 1970-01-01T00:00:00Z'

/** numpy-style dtype of each numeric export type */
const DTYPE: Readonly<Record<Exclude<ExportColumnType, 'String'>, string>> = {
  DateTime64: '<q',
  Float64: '<d',
  Float32: '<f',
  Int64: '<q',
  Int32: '<i',
  UInt64: '<Q',
  UInt32: '<I',
  UInt8: '<B'
}

export interface Hdf5FileJob {
  readonly select: string
  readonly params: Params
  readonly columns: readonly ExportColumn[]
  readonly tmpDir: string
  readonly signal: AbortSignal | undefined
  readonly maxRows: number
  /** the data is synthetic (demo market): root attribute `synthetic` = 1 */
  readonly synthetic: boolean
}

interface Gathered {
  rows: number
  /** per column, its values block by block */
  readonly values: (NumericValues | string[])[][]
  /** per column, its null maps block by block (nullable columns) */
  readonly nulls: Uint8Array[][]
}

function tooLarge(maxRows: number): ApiError {
  return new ApiError(
    'payload_too_large',
    `HDF5 exports are limited to ${maxRows} rows and this one has more; request format=parquet (or arrow) for large exports`
  )
}

function checkNames(columns: readonly ExportColumn[]): void {
  for (const c of columns) {
    if (c.name.includes('/') || c.name === '.') throw new TypeError(`HDF5 dataset name ${c.name} is not allowed`)
    if (c.name === NULL_MASK_GROUP && columns.some((x) => x.nullable)) {
      throw new TypeError(`column name ${NULL_MASK_GROUP} is reserved in HDF5 exports with nullable columns`)
    }
  }
}

function addBlock(g: Gathered, block: NativeBlock, columns: readonly ExportColumn[]): void {
  if (block.columns.length !== columns.length || block.columns.some((col, i) => col.name !== columns[i]!.name)) {
    throw new Error('Native block columns differ from the export columns')
  }
  block.columns.forEach((col, i) => {
    const { values, nullMap } = col
    if (nullMap && (values instanceof Float64Array || values instanceof Float32Array)) {
      for (let r = 0; r < nullMap.length; r++) if (nullMap[r]) values[r] = NaN // visible without the mask
    }
    g.values[i]!.push(values)
    if (nullMap) g.nulls[i]!.push(nullMap)
  })
  g.rows += block.rows
}

async function gather(store: Store, job: Hdf5FileJob): Promise<Gathered> {
  const g: Gathered = { rows: 0, values: job.columns.map(() => []), nulls: job.columns.map(() => []) }
  const stream = store.stream(job.select + settingsClause(NATIVE_SETTINGS), job.params, 'Native', job.signal)
  for await (const block of nativeBlocks(stream)) {
    job.signal?.throwIfAborted()
    // leaving the loop cancels the query
    if (g.rows + block.rows > job.maxRows) throw tooLarge(job.maxRows)
    addBlock(g, block, job.columns)
  }
  return g
}

/** One array of the column's blocks; `[]` when there were none (h5wasm converts it to the dtype). */
function concatNumbers(parts: NumericValues[], rows: number): NumericValues | [] {
  if (parts.length <= 1) return parts[0] ?? []
  const out = new (parts[0]!.constructor as new (n: number) => NumericValues)(rows)
  let at = 0
  for (const p of parts) {
    ;(out as Uint8Array).set(p as Uint8Array, at)
    at += p.length
  }
  return out
}

function concatStrings(parts: string[][]): string[] {
  const out: string[] = []
  for (const p of parts) for (const s of p) out.push(s)
  return out
}

/** Lets other work run between datasets: h5wasm is synchronous (1M strings take ~1 s, 1M numbers ~70 ms). */
const breather = () => new Promise<void>((resolve) => setImmediate(resolve))

async function writeFile(path: string, job: Hdf5FileJob, g: Gathered): Promise<void> {
  const { default: h5wasm } = await import('h5wasm/node')
  await h5wasm.ready
  const file = new h5wasm.File(path, 'w', { track_order: true })
  try {
    for (const [i, c] of job.columns.entries()) {
      const parts = g.values[i]!
      g.values[i] = [] // gathered blocks are released column by column as each dataset is written
      if (c.type === 'String') {
        file.create_dataset({ name: c.name, data: concatStrings(parts as string[][]), shape: [g.rows], dtype: 'S' })
      } else {
        const data = concatNumbers(parts as NumericValues[], g.rows)
        const ds = file.create_dataset({ name: c.name, data, shape: [g.rows], dtype: DTYPE[c.type] })
        if (c.type === 'DateTime64') ds.create_attribute('units', TIMESTAMP_UNITS)
      }
      await breather()
      job.signal?.throwIfAborted()
    }
    if (job.columns.some((c) => c.nullable)) file.create_group(NULL_MASK_GROUP, true)
    for (const [i, c] of job.columns.entries()) {
      if (!c.nullable) continue
      const mask = concatNumbers(g.nulls[i]!, g.rows)
      file.create_dataset({ name: `${NULL_MASK_GROUP}/${c.name}`, data: mask, shape: [g.rows], dtype: '<B' })
    }
    file.create_attribute(
      'columns',
      job.columns.map((c) => c.name)
    )
    if (job.synthetic) file.create_attribute('synthetic', 1, [], '<B')
  } finally {
    file.close()
  }
}

export async function* hdf5ViaFile(store: Store, job: Hdf5FileJob): AsyncGenerator<Uint8Array> {
  checkNames(job.columns)
  const gathered = await gather(store, job)
  const path = await tempPath(job.tmpDir, '.h5')
  try {
    await writeFile(path, job, gathered)
    yield* readPieces(path, job.signal)
  } finally {
    await removeQuietly(path)
  }
}
