/**
 * @module
 * The SQL of the candle export (`GET /v1/backtest/export`): its columns and the query
 * over one candle table. Every value is a bound parameter (`bases`, the markets' `ex`/`sym`, `from`, `to`,
 * and when pinned `parts`/`cut`); the table name comes from the timeframes table.
 */
import { bucketSql, type Span } from '../history/span.js'

/** The exported columns, in file order: timestamp in epoch ms, then the market, then the candle. */
export const EXPORT_COLUMNS = [
  { name: 'timestamp', type: 'Int64' },
  { name: 'exchange', type: 'String' },
  { name: 'symbol', type: 'String' },
  { name: 'base', type: 'String' },
  { name: 'open', type: 'Float64' },
  { name: 'high', type: 'Float64' },
  { name: 'low', type: 'Float64' },
  { name: 'close', type: 'Float64' },
  { name: 'volume_base', type: 'Float64' },
  { name: 'volume_quote', type: 'Float64' },
  { name: 'trades', type: 'UInt64' }
] as const

/**
 * The export query: merged candles in sorting-key order. `FINAL` merges the aggregate states of equal keys
 * (base, exchange, symbol, bucket: the table's ORDER BY) while reading the parts in key order, a streaming
 * merge with memory bounded by blocks; a GROUP BY over the same keys built a hash table of every row
 * first (+3.6 GB at 10M rows, docs/benchmarks.md). On a cluster FINAL runs per shard: candles are sharded
 * by base, so equal keys never sit on two shards. `base IN` restricts the merge to the requested bases
 * through the primary key: the (exchange, symbol) condition alone did not prune before the merge
 * (5 markets of 250: 3.8 s, with `base IN` 0.3 s). The inner aliases avoid the state columns' names.
 *
 * With `pinned` (engine/export/pinned-parts.ts), rows before the cut (`{cut}`, epoch s) are read without
 * `FINAL` from exactly the pinned parts (`{parts}`: each has every key once and no other part holds a row
 * before the cut); rows from the cut on are read with `FINAL`, `PREWHERE bucket >= cut` filtering before
 * the merge (bucket is a sorting-key column: all rows of a key pass or none). ClickHouse merges the two
 * key-ordered branches (MergingSortedTransform, no full sort).
 */
export function exportSql(table: string, marketsSql: string, pinned = false): string {
  const where = `base IN {bases:Array(String)} AND ${marketsSql}
        AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')`
  const states = `SELECT base, exchange, symbol, bucket, finalizeAggregation(open) AS o, high, low,
        finalizeAggregation(close) AS c, volume_base, volume_quote, trades`
  const inner = pinned
    ? `${states} FROM ${table} WHERE _part IN {parts:Array(String)} AND bucket < toDateTime({cut:UInt32}, 'UTC') AND ${where}
      UNION ALL
      ${states} FROM ${table} FINAL PREWHERE bucket >= toDateTime({cut:UInt32}, 'UTC') WHERE ${where}`
    : `${states} FROM ${table} FINAL WHERE ${where}`
  return `SELECT toInt64(toUnixTimestamp(bucket)) * 1000 AS timestamp, exchange, symbol, base,
      o AS open, high, low, c AS close, volume_base, volume_quote, trades
    FROM (${inner})
    ORDER BY base, exchange, symbol, bucket`
}

/**
 * The export query over a `known_by` source (engine/history/known-sources.ts `candleFrom`, a subquery whose
 * rows are candle states of several parts per key): the same columns and order as `exportSql`, the states
 * merged by a GROUP BY on the timeframe's bucket (`span`) instead of `FINAL`. Used only when some hour of the
 * range is late; otherwise the export reads the table itself with `exportSql`.
 */
export function knownExportSql(from: string, marketsSql: string, span: Span): string {
  return `SELECT toInt64(toUnixTimestamp(tb)) * 1000 AS timestamp, exchange, symbol, base,
      o AS open, h AS high, l AS low, c AS close, vb AS volume_base, vq AS volume_quote, n AS trades
    FROM (SELECT base, exchange, symbol, ${bucketSql('bucket', span)} AS tb, argMinMerge(open) AS o, max(high) AS h,
        min(low) AS l, argMaxMerge(close) AS c, sum(volume_base) AS vb, sum(volume_quote) AS vq, sum(trades) AS n
      FROM ${from}
      WHERE base IN {bases:Array(String)} AND ${marketsSql}
        AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')
      GROUP BY base, exchange, symbol, tb)
    ORDER BY base, exchange, symbol, tb`
}
