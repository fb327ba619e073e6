/**
 * @module
 * Which rows an import skips because the store already has that data: the rule that makes importing a
 * file twice change nothing, lets overlapping files (a monthly and a daily file of the same days) add each
 * day once, and gives trades precedence over klines.
 *
 * - Candles (trades write 1m through the views; klines write their own level directly): a row is skipped
 *   when its market already has a candle at the level written, for that bucket, or when a bucket its level
 *   cascades into (1m → 5m, 15m, 1h → 4h, 1d → 1w, 1mo) already holds data that did not come through the
 *   level written (a coarser kline): adding to it would count that range twice. So per market and bucket,
 *   the first writer wins: trades imported before klines keep their minutes and klines fill only the
 *   buckets without trades; klines imported first keep their buckets and later trades skip them.
 * - Funding and open interest: per market and hour of the hourly aggregate (`funding_1h`,
 *   `open_interest_1h`), which lives 24 months, so the rule holds after the raw rows' 90-day TTL.
 * - Long/short ratios and option quotes: rows with the same key and time in the raw table.
 *
 * Coverage is judged per slice (whole hours) against the store as it is when that slice is written.
 * Parameters: {bases:Array(String)} (every base in the file), {from_ms:Int64} and {to_ms:Int64} (the slice's
 * time range).
 */
import type { CandleLevel, Coverage } from './csv-layout.js'

const FROM = `fromUnixTimestamp64Milli({from_ms:Int64}, 'UTC')`
const TO = `fromUnixTimestamp64Milli({to_ms:Int64}, 'UTC')`

/** The `bucket` of each candle level for a time expression (as the views compute it, as DateTime). */
export function bucketOf(level: CandleLevel, x: string): string {
  switch (level) {
    case '1m':
      return `toDateTime(toStartOfMinute(${x}), 'UTC')`
    case '5m':
      return `toDateTime(toStartOfFiveMinutes(${x}), 'UTC')`
    case '15m':
      return `toDateTime(toStartOfFifteenMinutes(${x}), 'UTC')`
    case '1h':
      return `toDateTime(toStartOfHour(${x}), 'UTC')`
    case '4h':
      return `toDateTime(toStartOfInterval(${x}, INTERVAL 4 HOUR, 'UTC'), 'UTC')`
    case '1d':
      return `toDateTime(toStartOfDay(${x}, 'UTC'), 'UTC')`
    case '1w':
      return `toDateTime(toMonday(${x}, 'UTC'), 'UTC')`
    case '1mo':
      return `toDateTime(toStartOfMonth(${x}, 'UTC'), 'UTC')`
  }
}

/** The candle views: rows written at a level are aggregated into these levels (schemas/002_candles.sql). */
const FEEDS: Readonly<Partial<Record<CandleLevel, readonly CandleLevel[]>>> = {
  '1m': ['5m', '15m', '1h'],
  '1h': ['4h', '1d'],
  '1d': ['1w', '1mo']
}

/** Every level that rows written at `level` reach through the views. */
export function cascadeOf(level: CandleLevel): CandleLevel[] {
  const out: CandleLevel[] = []
  for (const next of FEEDS[level] ?? []) out.push(next, ...cascadeOf(next))
  return out
}

const MARKET = '(base, exchange, symbol'

function candles(level: CandleLevel): string {
  const own =
    `${MARKET}, ${bucketOf(level, 'ts')}) NOT IN (SELECT base, exchange, symbol, bucket FROM candles_${level} ` +
    `WHERE base IN {bases:Array(String)} AND bucket BETWEEN ${bucketOf(level, FROM)} AND ${TO})`
  // a bucket above that holds data not made of rows at `level` was written directly (a coarser kline)
  const above = cascadeOf(level).map(
    (up) =>
      `${MARKET}, ${bucketOf(up, 'ts')}) NOT IN (SELECT base, exchange, symbol, bucket FROM candles_${up} ` +
      `WHERE base IN {bases:Array(String)} AND bucket BETWEEN ${bucketOf(up, FROM)} AND ${TO} ` +
      `AND ${MARKET}, bucket) NOT IN (SELECT base, exchange, symbol, ${bucketOf(up, 'bucket')} FROM candles_${level} ` +
      `WHERE base IN {bases:Array(String)} AND bucket BETWEEN ${bucketOf(up, FROM)} AND ${TO} + INTERVAL 32 DAY))`
  )
  return [own, ...above].join('\n  AND ')
}

/** The filter (over the inner select's columns) that keeps only rows the store does not have yet. */
export function coverageFilter(coverage: Coverage, table: string): string {
  switch (coverage.kind) {
    case 'candles':
      return candles(coverage.level)
    case 'hourly':
      return (
        `${MARKET}, toDateTime(toStartOfHour(ts), 'UTC')) NOT IN (SELECT base, exchange, symbol, bucket FROM ${coverage.table} ` +
        `WHERE base IN {bases:Array(String)} AND bucket BETWEEN toDateTime(toStartOfHour(${FROM}), 'UTC') AND ${TO})`
      )
    case 'rows': {
      const key = [...coverage.key, 'ts'].join(', ')
      return `(${key}) NOT IN (SELECT ${key} FROM ${table} WHERE ts BETWEEN ${FROM} AND ${TO})`
    }
  }
}
