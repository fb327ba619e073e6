/**
 * @module
 * What the importer knows about one CSV layout (a data.binance.vision or Tardis.dev file type): its
 * columns with the check each cell must pass, where its time is, and the statements that move its rows into
 * Tidewatch tables. Layouts are plain data; `csv-scan.ts` checks lines against them byte by byte, and
 * `writer.ts` runs their targets.
 */

/**
 * Cell checks, done on the raw bytes (no per-row objects):
 * - `uint`: digits; `int`: optional `-` then digits
 * - `udec`: a non-negative decimal (`12`, `0.5`, `1e-8`); `dec`: a decimal that may be negative
 * - `bool`: `true`/`false` in any case
 * - `word`: non-empty, no quotes (symbols, exchange ids, instrument names)
 * - `side`: `buy` or `sell` (a taker side)
 * - `datetime`: `YYYY-MM-DD HH:MM:SS` (UTC)
 * - `any`: anything without a quote (columns Tidewatch ignores)
 */
export type CellCheck = 'uint' | 'int' | 'udec' | 'dec' | 'bool' | 'word' | 'side' | 'datetime' | 'any'

export interface CsvColumn {
  /** the header name in the source files */
  readonly name: string
  readonly check: CellCheck
  /** an empty cell is allowed (read as NULL) */
  readonly optional?: boolean
  /** ClickHouse type used to read the column back from the staged CSV */
  readonly chType: string
}

/**
 * The time of a row: `epoch` is integer milliseconds, or microseconds when the value is at least
 * `MICROS_FROM` (newer data.binance.vision files); `micros` is always microseconds (Tardis);
 * `datetime` is a `YYYY-MM-DD HH:MM:SS` string in UTC (Binance `metrics`).
 */
export type TimeEncoding = 'epoch' | 'micros' | 'datetime'

/** 1e14: as milliseconds that is the year 5138, as microseconds 1973; so larger values are microseconds. */
export const MICROS_FROM = 100_000_000_000_000

/** Where the rows of one layout go: one INSERT ... SELECT per target and slice, built by writer.ts. */
export interface ImportTarget {
  /** Tidewatch table written */
  readonly table: string
  /** the insert column list */
  readonly columns: readonly string[]
  /**
   * SELECT list over the CSV columns, producing the row time `ts` (DateTime64(3)), the columns the coverage
   * filter needs (`base`, `exchange`, `symbol`, or the `rows` key) and what `outer` reads. It may use the
   * file's bound parameters (market.ts: {exchange:String}, {market:String}, {symbol:String}, {base:String},
   * {quote:String}, and for multi-market files the per-market arrays).
   */
  readonly inner: string
  /** SELECT list over `inner` giving `columns`; the column names themselves when absent */
  readonly outer?: string
  /** extra row filter over the selected columns (e.g. rows that carry a funding rate) */
  readonly where?: string
  /** GROUP BY of aggregate targets (klines into candle states) */
  readonly groupBy?: string
  /** how rows already in the store are recognized and skipped (coverage.ts) */
  readonly coverage: Coverage
  /**
   * a bookkeeping target (the known-at ledger, schemas/023_known_at.sql), not data: written like the others
   * but not listed among the tables an import wrote
   */
  readonly ledger?: boolean
}

/** Candle tables and their bucket, by level (the `bucket` column of `candles_<level>`). */
export type CandleLevel = '1m' | '5m' | '15m' | '1h' | '4h' | '1d' | '1w' | '1mo'

export type Coverage =
  /** candle buckets of a level (trades write 1m; klines write their own level) */
  | { readonly kind: 'candles'; readonly level: CandleLevel }
  /** an hourly aggregate of the table, keyed (base, exchange, symbol, bucket) */
  | { readonly kind: 'hourly'; readonly table: string }
  /** rows of the raw table with the same key columns and `ts` */
  | { readonly kind: 'rows'; readonly key: readonly string[] }

export interface CsvLayout {
  /** e.g. `binance aggTrades (USD-M futures)`; shown in progress and errors */
  readonly description: string
  readonly columns: readonly CsvColumn[]
  /** index of the column holding the row's time */
  readonly timeColumn: number
  readonly time: TimeEncoding
  /** `required`: the first line must be the header (Tardis); `optional`: sniffed (Binance) */
  readonly header: 'required' | 'optional'
  readonly targets: readonly ImportTarget[]
  /** the exchange/symbol columns of multi-market layouts (Tardis); absent when the file name says */
  readonly marketColumns?: { readonly exchange: number; readonly symbol: number }
  /**
   * index of a column holding each market's next funding time (in the `time` encoding), from which the
   * scan infers the market's funding interval (funding-interval.ts); needs `marketColumns`
   */
  readonly fundingTimeColumn?: number
}
