/**
 * @module
 * The export formats: what the client receives (content type, file extension) and which ClickHouse output
 * format and settings produce the bytes. See docs/export-formats.md.
 */

/** Key-value metadata of an export file, in order (Parquet footer, Arrow schema). */
export type MetadataEntries = readonly (readonly [string, string])[]

/**
 * What an export of synthetic (demo) data carries where its format has a place for metadata: the Parquet
 * footer's `key_value_metadata` and the Arrow schema's `custom_metadata` (HDF5: root attribute
 * `synthetic`; CSV and JSON only the response header and file name). Absent on real data.
 */
export const SYNTHETIC_METADATA: MetadataEntries = [['tidewatch.synthetic', 'true']]

export type ExportFormat = 'csv' | 'json' | 'ndjson' | 'parquet' | 'arrow' | 'hdf5'

export const EXPORT_FORMAT_NAMES: readonly ExportFormat[] = ['csv', 'json', 'ndjson', 'parquet', 'arrow', 'hdf5']

export interface ExportFormatInfo {
  /** value of the Content-Type header */
  readonly contentType: string
  /** file name extension, with the dot, for Content-Disposition */
  readonly extension: string
  /** the ClickHouse output format the bytes come from (Native for HDF5: decoded here, then written by h5wasm) */
  readonly clickhouseFormat: 'CSVWithNames' | 'JSONEachRow' | 'Parquet' | 'ArrowStream' | 'Native'
  /** output settings for that format, added to the query's SETTINGS clause */
  readonly settings: Readonly<Record<string, string | number>>
}

/** Settings of every export: 64-bit integers (epoch ms, counts) as JSON numbers, not quoted strings. */
const COMMON_SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const

/**
 * Added to every export query on chDB (ClickHouse 26.x in-process; older servers would reject settings
 * they do not know). They bound the memory of reading a large table in key order, as the candle export
 * does (`FINAL ... ORDER BY` the sorting key): such a read keeps blocks of every part in flight, so block
 * size times part count is the query's footprint (docs/export-formats.md, "Memory").
 */
export const EMBEDDED_READ_SETTINGS = {
  // rows per block, hence per chDB payload: one Parquet row group, one Arrow record batch. Server RSS
  // growth at 10M candles over 10 overlapping parts (bench/history): 65,409 (default) ~+450 MB,
  // 32,768 +130 to +260 MB, 16,384 +120 to +180 MB, at the same rows/s
  max_block_size: 16_384,
  // reading in key order buffers blocks ahead for every part to add parallelism; an export is paced by
  // its reader anyway, and the buffers held ~70 MB at 10 parts
  read_in_order_use_buffering: 0
} as const

/**
 * Parquet on chDB: each block becomes its own file that engine/export/parquet-frames.ts joins. Page
 * indexes and bloom filters hold absolute offsets it could not move (and bloom filters doubled
 * ClickHouse's encoding time). With the default 1 MiB dictionary limit every column of a small block was
 * dictionary-encoded, prices included (+20% bytes, +20% CPU). The limit is bytes of dictionary per column
 * chunk (one block): 4 KiB keeps dictionaries for columns with few distinct values (exchange, symbol, base)
 * and makes a price column give up after 512 values; at 64 KiB it built 8,192 entries first (~30% more
 * encoding CPU at 10M rows, same file size). No dictionary at all: -10% CPU but +4.5% bytes.
 */
export const EMBEDDED_PARQUET_SETTINGS = {
  output_format_parquet_write_page_index: 0,
  output_format_parquet_write_bloom_filter: 0,
  output_format_parquet_max_dictionary_size: 4_096,
  // one block per file: handing its columns to encoder threads cost ~15% more CPU (3.7 vs 4.3 CPU-s for 10M
  // rows in process) at the same wall time
  output_format_parquet_parallel_encoding: 0
} as const

/** Native output read by our own code (HDF5): plain columns, no dictionaries. */
export const NATIVE_SETTINGS = { ...COMMON_SETTINGS, low_cardinality_allow_in_native_format: 0 } as const

export const EXPORT_FORMATS: Readonly<Record<ExportFormat, ExportFormatInfo>> = {
  csv: {
    contentType: 'text/csv; charset=utf-8',
    extension: '.csv',
    clickhouseFormat: 'CSVWithNames',
    // NULL as an empty unquoted field (pandas, spreadsheets), not ClickHouse's `\N`; strings are quoted
    settings: { ...COMMON_SETTINGS, format_csv_null_representation: '' }
  },
  json: {
    contentType: 'application/json',
    extension: '.json',
    clickhouseFormat: 'JSONEachRow',
    settings: COMMON_SETTINGS
  },
  ndjson: {
    contentType: 'application/x-ndjson',
    extension: '.ndjson',
    clickhouseFormat: 'JSONEachRow',
    settings: COMMON_SETTINGS
  },
  parquet: {
    contentType: 'application/vnd.apache.parquet',
    extension: '.parquet',
    clickhouseFormat: 'Parquet',
    // snappy: read by every Parquet reader (pyarrow, polars, duckdb, spark, parquetjs); zstd is not
    settings: {
      ...COMMON_SETTINGS,
      output_format_parquet_compression_method: 'snappy',
      output_format_parquet_string_as_string: 1
    }
  },
  arrow: {
    contentType: 'application/vnd.apache.arrow.stream',
    extension: '.arrows',
    clickhouseFormat: 'ArrowStream',
    // uncompressed bodies: Arrow readers without an LZ4 codec (apache-arrow JS) decode them directly
    settings: {
      ...COMMON_SETTINGS,
      output_format_arrow_compression_method: 'none',
      output_format_arrow_string_as_string: 1,
      output_format_arrow_low_cardinality_as_dictionary: 0
    }
  },
  hdf5: {
    contentType: 'application/x-hdf5',
    extension: '.h5',
    clickhouseFormat: 'Native',
    settings: NATIVE_SETTINGS
  }
}

export { settingsClause, sqlString } from '../store/sql-text.js'
