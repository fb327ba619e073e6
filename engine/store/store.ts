/**
 * @module
 * The narrow storage interface. Two adapters implement it: `chdb/` (embedded, default) and `clickhouse/`
 * (a ClickHouse server through @clickhouse/client). Nothing outside `engine/store` imports a ClickHouse
 * client. SQL uses ClickHouse's bound parameters `{name:Type}`; values travel separately from the text.
 */

/** Bound parameter values for `{name:Type}` placeholders. */
export type Params = Readonly<Record<string, string | number | boolean | readonly (string | number)[]>>

/** Text formats accepted for inserts (chDB's embedded path takes text formats only). */
export type InsertFormat = 'TSV' | 'JSONEachRow'

export interface InsertBatch {
  readonly table: string
  readonly columns: readonly string[]
  readonly format: InsertFormat
  /** the payload bytes in `format`; must not be mutated until the insert settles */
  readonly data: Buffer
  /**
   * Deterministic token of this batch. Retrying the same bytes with the same token is a no-op in the
   * raw table and in every materialized view (dedup windows on each table, see schemas/).
   */
  readonly dedupToken: string
  /**
   * Bulk batches (the demo market, full-speed replays, admin NDJSON loads): insert with
   * `optimize_on_insert=1`, so each part the insert writes into an aggregating target (the candle tables)
   * folds its equal keys and is level 1, which exports read without `FINAL` (engine/export/pinned-parts.ts).
   * Stored answers are the same either way (the reads' `FINAL`/`GROUP BY` fold equal keys).
   * @default false (`optimize_on_insert=0`)
   */
  readonly foldKeys?: boolean | undefined
}

/** An insert whose payload is in a file: `file` holds `skipLines` header lines, then the payload. */
export interface FileInsert extends Omit<InsertBatch, 'data'> {
  /** absolute path */
  readonly file: string
  readonly skipLines: number
}

export interface Store {
  readonly kind: 'chdb' | 'clickhouse'
  /** DDL or any statement without a result. */
  command(sql: string, params?: Params): Promise<void>
  /** A typed query returning JSON rows (64-bit integers come back as numbers when they fit). */
  query<T>(sql: string, params?: Params): Promise<T[]>
  /** One insert of one batch, idempotent under retries with the same dedup token. */
  insert(batch: InsertBatch): Promise<void>
  /**
   * The same insert, reading the payload from a file (the ingest journal's entry) after `skipLines` header
   * lines. chDB only (the engine reads the file itself: ~40% less engine CPU than passing the bytes, see
   * chdb-store.ts). Retries must take the same path: the dedup block ids of a token differ between the two.
   */
  insertFile?(batch: FileInsert): Promise<void>
  /**
   * A streaming query in a ClickHouse output format. Yields byte chunks; on chDB each chunk is a
   * self-contained payload per block (Parquet/Arrow/CSVWithNames need re-framing by the caller).
   * Breaking out of the loop cancels the query.
   */
  stream(sql: string, params: Params | undefined, format: string, signal?: AbortSignal): AsyncIterable<Uint8Array>
  close(): Promise<void>
}

/** Settings sent with every insert so retries never double-count tables or views. */
export const DEDUP_INSERT_SETTINGS = {
  insert_deduplicate: 1,
  deduplicate_blocks_in_dependent_materialized_views: 1
} as const

/**
 * Settings of our own insert path. A raw table feeds up to 9 materialized views (the candle cascade):
 * `parallel_view_processing` pushes a block to independent views concurrently (measured ~10-20% faster
 * on 2 cores, bench/ingest); `optimize_on_insert=0` skips merging equal keys inside each inserted block of
 * the aggregate targets, work the background merges and every read's GROUP BY do anyway.
 */
export const FAST_INSERT_SETTINGS = {
  parallel_view_processing: 1,
  optimize_on_insert: 0
} as const

/**
 * `FAST_INSERT_SETTINGS` for one batch: a `foldKeys` batch is inserted with `optimize_on_insert=1` (measured
 * on the demo backfill: docs/benchmarks.md, "Exports during the compaction with level-1 backfill parts, 2026-11-24").
 */
export function insertSettings(batch: Pick<InsertBatch, 'foldKeys'>): {
  readonly parallel_view_processing: 1
  readonly optimize_on_insert: 0 | 1
} {
  return batch.foldKeys ? { ...FAST_INSERT_SETTINGS, optimize_on_insert: 1 } : FAST_INSERT_SETTINGS
}
