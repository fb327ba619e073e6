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
 * Coverage is judged per slice (whole hours) against the store as it is just before that slice is written,
 * and frozen in a keys file the statement reads (see `CoveragePlan`).
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

const MARKET = 'base, exchange, symbol'
const IN_BASES = 'base IN {bases:Array(String)}'
/** Key columns of the candle and hourly checks (name and type), as written to the keys file. */
const BUCKET_KEY: readonly (readonly [string, string])[] = [
  ['base', 'String'],
  ['exchange', 'String'],
  ['symbol', 'String'],
  ['bucket', `DateTime('UTC')`]
]

/** One check: rows whose `key` (over the inner select's columns) is among the rows of `select` are skipped. */
interface Check {
  readonly key: string
  readonly select: string
}

function candles(level: CandleLevel): Check[] {
  const own: Check = {
    key: `(${MARKET}, ${bucketOf(level, 'ts')})`,
    select:
      `SELECT ${MARKET}, bucket FROM candles_${level} ` +
      `WHERE ${IN_BASES} AND bucket BETWEEN ${bucketOf(level, FROM)} AND ${TO}`
  }
  // a bucket above that holds data not made of rows at `level` was written directly (a coarser kline)
  const above = cascadeOf(level).map((up): Check => ({
    key: `(${MARKET}, ${bucketOf(up, 'ts')})`,
    select:
      `SELECT ${MARKET}, bucket FROM candles_${up} ` +
      `WHERE ${IN_BASES} AND bucket BETWEEN ${bucketOf(up, FROM)} AND ${TO} ` +
      `AND (${MARKET}, bucket) NOT IN (SELECT ${MARKET}, ${bucketOf(up, 'bucket')} FROM candles_${level} ` +
      `WHERE ${IN_BASES} AND bucket BETWEEN ${bucketOf(up, FROM)} AND ${TO} + INTERVAL 32 DAY)`
  }))
  return [own, ...above]
}

/**
 * What the store holds of a slice's range, frozen before the slice is written. The keys the store already
 * has are written to a file first (`select`, columns `structure`), and the insert filters against that
 * file (`filter`), never against the live tables: so the statement is a pure function of its files and
 * parameters, and replaying it after a crash (import-journal.ts) selects exactly the same rows, whereas
 * a re-evaluation would see the slice's own rows and skip them.
 */
export interface CoveragePlan {
  /** SELECT of the keys the store already holds; column `part` numbers the check a key belongs to */
  readonly select: string
  /** the `file()` structure of `select`'s output */
  readonly structure: string
  /**
   * the filter (over the inner select's columns) that keeps only rows whose keys are not in `keysFile`;
   * with `parts`, only the checks numbered there (the others found no key: `NOT IN` an empty set keeps
   * every row, and skipping it spares the statement a tuple and a set lookup per row and check); an empty
   * filter is `1`
   */
  filter(keysFile: string, parts?: ReadonlySet<number>): string
  /** a SELECT of the distinct `part` numbers in `keysFile` (column `part`) */
  partsIn(keysFile: string): string
}

function plan(
  checks: readonly Check[],
  keyColumns: readonly (readonly [string, string])[],
  quote: (s: string) => string
): CoveragePlan {
  const structure = ['part UInt8', ...keyColumns.map(([name, type]) => `${name} ${type}`)].join(', ')
  const columns = keyColumns.map(([name]) => name).join(', ')
  return {
    select: checks.map((c, i) => `SELECT ${i} AS part, ${columns} FROM (${c.select})`).join('\nUNION ALL '),
    structure,
    filter: (keysFile, parts) =>
      checks
        .map((c, i) =>
          parts && !parts.has(i)
            ? ''
            : `${c.key} NOT IN (SELECT ${columns} FROM file(${quote(keysFile)}, 'Native', ${quote(structure)}) WHERE part = ${i})`
        )
        .filter(Boolean)
        .join('\n  AND ') || '1',
    partsIn: (keysFile) => `SELECT DISTINCT part FROM file(${quote(keysFile)}, 'Native', ${quote(structure)})`
  }
}

/** The coverage checks of a target writing `table`; `quote` makes a SQL string literal. */
export function coveragePlan(coverage: Coverage, table: string, quote: (s: string) => string): CoveragePlan {
  switch (coverage.kind) {
    case 'candles':
      return plan(candles(coverage.level), BUCKET_KEY, quote)
    case 'hourly':
      return plan(
        [
          {
            key: `(${MARKET}, toDateTime(toStartOfHour(ts), 'UTC'))`,
            select:
              `SELECT ${MARKET}, bucket FROM ${coverage.table} ` +
              `WHERE ${IN_BASES} AND bucket BETWEEN toDateTime(toStartOfHour(${FROM}), 'UTC') AND ${TO}`
          }
        ],
        BUCKET_KEY,
        quote
      )
    case 'rows': {
      const key = [...coverage.key, 'ts'].join(', ')
      const columns = [...coverage.key.map((k) => [k, 'String'] as const), ['ts', `DateTime64(3, 'UTC')`] as const]
      return plan(
        [{ key: `(${key})`, select: `SELECT ${key} FROM ${table} WHERE ts BETWEEN ${FROM} AND ${TO}` }],
        columns,
        quote
      )
    }
  }
}
