/**
 * @module
 * Repair of the candle cascade over a time range whose trades may have reached the raw table without
 * reaching every view (schemas/002_candles.sql): an insert refused mid-way (a full disk refuses one view's
 * part after the raw part and other views' parts were written), or a crash between parts.
 *
 * Each level is brought to what its view computes from its source, in the cascade's order: 1m from raw
 * trades; 5m, 15m, 1h from 1m; 4h, 1d from 1h; 1w, 1mo from 1d. For every bucket of the level that the range
 * touches, the source's aggregate is compared with what the level holds, and where the level counts fewer
 * trades the difference is inserted as one more row: the sums as the missing amounts, open/close/high/low as
 * the source's own states (folding them in again changes nothing where they were already in). An insert into
 * a level that feeds others (1m, 1h, 1d) reaches them through their views, which is why the levels are
 * repaired in order and each compares against its source as repaired just before.
 *
 * Only additions: a bucket holding more trades than its source (raw rows past their 90-day TTL, candles
 * loaded without raw trades) is left as it is and counted in `surplus`, so a repair never removes data.
 * Running it twice inserts nothing the second time. Concurrent inserts into the range would be counted twice
 * (the raw rows read here and their view parts landing after): the caller holds the ingest writes.
 */
import type { TimeRange } from '../store/compact.js'
import type { Store } from '../store/store.js'
import { sqlTime } from '../store/sql-time.js'

interface Level {
  readonly table: string
  /** the table the level's view reads (`trades` for 1m) */
  readonly source: string
  /** the view's bucket of a source time (`x`), as in its DDL */
  readonly bucketOf: (x: string) => string
  /** one bucket's width, as a ClickHouse interval */
  readonly width: string
}

/** The cascade in the order it is repaired (each level after its source). */
export const CANDLE_LEVELS: readonly Level[] = [
  { table: 'candles_1m', source: 'trades', bucketOf: (x) => `toStartOfMinute(${x})`, width: 'INTERVAL 1 MINUTE' },
  {
    table: 'candles_5m',
    source: 'candles_1m',
    bucketOf: (x) => `toStartOfFiveMinutes(${x})`,
    width: 'INTERVAL 5 MINUTE'
  },
  {
    table: 'candles_15m',
    source: 'candles_1m',
    bucketOf: (x) => `toStartOfFifteenMinutes(${x})`,
    width: 'INTERVAL 15 MINUTE'
  },
  { table: 'candles_1h', source: 'candles_1m', bucketOf: (x) => `toStartOfHour(${x})`, width: 'INTERVAL 1 HOUR' },
  {
    table: 'candles_4h',
    source: 'candles_1h',
    bucketOf: (x) => `toStartOfInterval(${x}, INTERVAL 4 HOUR, 'UTC')`,
    width: 'INTERVAL 4 HOUR'
  },
  { table: 'candles_1d', source: 'candles_1h', bucketOf: (x) => `toStartOfDay(${x}, 'UTC')`, width: 'INTERVAL 1 DAY' },
  {
    table: 'candles_1w',
    source: 'candles_1d',
    bucketOf: (x) => `toDateTime(toMonday(${x}), 'UTC')`,
    width: 'INTERVAL 7 DAY'
  },
  {
    table: 'candles_1mo',
    source: 'candles_1d',
    bucketOf: (x) => `toDateTime(toStartOfMonth(${x}), 'UTC')`,
    width: 'INTERVAL 1 MONTH'
  }
]

/** What a repair found per level. */
export interface LevelRepair {
  readonly table: string
  /** buckets that counted fewer trades than their source, and were completed */
  readonly buckets: number
  /** trades those buckets were missing */
  readonly trades: number
  /** buckets that count more trades than their source (left as they are) */
  readonly surplus: number
}

const FROM = "{from:DateTime64(3, 'UTC')}"
const TO = "{to:DateTime64(3, 'UTC')}"
const SUMS = ['volume_base', 'volume_quote', 'buy_volume_base', 'trades'] as const
const COLUMNS = 'base, exchange, symbol, bucket, open, high, low, close, ' + SUMS.join(', ')

/** The source's aggregate per bucket of `level` over the buckets `range` touches (the level's view, bounded). */
function expectedSql(level: Level): string {
  const lo = level.bucketOf(FROM)
  const hi = `${level.bucketOf(TO)} + ${level.width}`
  if (level.source === 'trades') {
    return `SELECT base, exchange, symbol, toStartOfMinute(ts) AS bucket,
      argMinState(price, ts) AS open, max(price) AS high, min(price) AS low, argMaxState(price, ts) AS close,
      sum(qty) AS volume_base, sum(price * qty) AS volume_quote, sumIf(qty, side = 'buy') AS buy_volume_base,
      count() AS trades
    FROM trades WHERE ts >= ${lo} AND ts < ${hi}
    GROUP BY base, exchange, symbol, bucket`
  }
  return `SELECT base, exchange, symbol, ${level.bucketOf('s.bucket')} AS bucket,
      argMinMergeState(s.open) AS open, max(s.high) AS high, min(s.low) AS low, argMaxMergeState(s.close) AS close,
      sum(s.volume_base) AS volume_base, sum(s.volume_quote) AS volume_quote,
      sum(s.buy_volume_base) AS buy_volume_base, sum(s.trades) AS trades
    FROM ${level.source} AS s WHERE s.bucket >= ${lo} AND s.bucket < ${hi}
    GROUP BY base, exchange, symbol, bucket`
}

/** The level's own sums per bucket over the same buckets. */
function heldSql(level: Level): string {
  const lo = level.bucketOf(FROM)
  const hi = `${level.bucketOf(TO)} + ${level.width}`
  return `SELECT base, exchange, symbol, bucket, ${SUMS.map((c) => `sum(${c}) AS ${c}`).join(', ')}
    FROM ${level.table} WHERE bucket >= ${lo} AND bucket < ${hi}
    GROUP BY base, exchange, symbol, bucket`
}

function joined(level: Level, select: string, where: string): string {
  return `SELECT ${select} FROM (${expectedSql(level)}) AS e
    LEFT JOIN (${heldSql(level)}) AS c USING (base, exchange, symbol, bucket)
    WHERE ${where}`
}

/** Repairs every candle level over `range` (epoch ms, inclusive); see the module comment. */
export async function repairCandles(store: Store, range: TimeRange): Promise<LevelRepair[]> {
  const params = { from: sqlTime(range.fromMs), to: sqlTime(range.toMs) }
  const out: LevelRepair[] = []
  for (const level of CANDLE_LEVELS) {
    const [found] = await store.query<{ buckets: number; trades: number; surplus: number }>(
      joined(
        level,
        `countIf(e.trades > c.trades) AS buckets, sumIf(e.trades - c.trades, e.trades > c.trades) AS trades,
        countIf(e.trades < c.trades) AS surplus`,
        '1'
      ),
      params
    )
    const repair = {
      table: level.table,
      buckets: found?.buckets ?? 0,
      trades: found?.trades ?? 0,
      surplus: found?.surplus ?? 0
    }
    out.push(repair)
    if (repair.buckets === 0) continue
    const missing = SUMS.map((c) => `e.${c} - c.${c}`).join(', ')
    // no block dedup: a second repair of the same amounts (a second loss) must not be taken for a retry
    await store.command(
      `INSERT INTO ${level.table} (${COLUMNS}) SETTINGS insert_deduplicate = 0 ` +
        joined(
          level,
          `e.base, e.exchange, e.symbol, e.bucket, e.open, e.high, e.low, e.close, ${missing}`,
          'e.trades > c.trades'
        ),
      params
    )
  }
  return out
}

/** `repairCandles` as the view repair of the trades table (ingest/view-repairs.ts). */
export function candleRepair(
  store: Store
): (range: TimeRange) => Promise<{ buckets: number; surplus: number; detail: Record<string, number> }> {
  return async (range) => {
    const levels = await repairCandles(store, range)
    return {
      buckets: levels.reduce((n, l) => n + l.buckets, 0),
      surplus: levels.reduce((n, l) => n + l.surplus, 0),
      // trades restored per level, for the log
      detail: Object.fromEntries(levels.map((l) => [l.table, l.trades]))
    }
  }
}
