/**
 * @module
 * The funding aggregates as they were known at a moment (`known_by`, docs/history.md "Known by"): the
 * source of a funding read is funding_1h outside the late hours (engine/asof/known-at.ts) and, for each late
 * hour, the same states recomputed from the raw `funding` readings received by then (the view
 * funding_1h_mv's aggregation). Whole-day reads use this hourly source when some hour is late: the buckets
 * merge the hours' states exactly as funding_1d does. No late hour: the plain table, the same SQL as without.
 */
import { lateHours } from '../asof/known-at.js'
import type { Store } from '../store/store.js'
import type { TimeRange } from './range.js'

const HOUR_MS = 3_600_000

/** A funding source: the table or subquery a read selects `FROM`, and the parameters it binds. */
export interface FundingFrom {
  readonly from: string
  readonly params: Readonly<Record<string, number | readonly number[]>>
}

/** Hourly states of both parts, every column of one type across the UNION ALL. */
const HOURLY = `base, exchange, symbol, bucket, rate_last, rate_avg, toFloat64(rate_min) AS rate_min,
  toFloat64(rate_max) AS rate_max, toUInt8(interval_hours) AS interval_hours, toUInt64(samples) AS samples`

const RAW = `base, exchange, symbol, toDateTime(toStartOfHour(ts), 'UTC') AS bucket,
  argMaxState(funding_rate, ts) AS rate_last, avgState(funding_rate) AS rate_avg, min(funding_rate) AS rate_min,
  max(funding_rate) AS rate_max, max(interval_hours) AS interval_hours, count() AS samples`

/**
 * What a funding read over `range` selects from: `table` when `knownByMs` is undefined or no hour of the range
 * is late, else funding_1h and the raw readings of the late hours received by `knownByMs`.
 */
export async function fundingFrom(
  store: Store,
  table: 'funding_1h' | 'funding_1d',
  range: TimeRange,
  knownByMs: number | undefined
): Promise<FundingFrom> {
  if (knownByMs === undefined) return { from: table, params: {} }
  const late = await lateHours(store, 'funding', range.fromMs, range.toMs, knownByMs)
  if (late.length === 0) return { from: table, params: {} }
  return {
    from: `(SELECT ${HOURLY} FROM funding_1h WHERE NOT has({fk_late:Array(UInt32)}, toUInt32(bucket))
      UNION ALL
      SELECT ${RAW} FROM funding
      WHERE ts >= fromUnixTimestamp64Milli({fk_from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({fk_to:Int64}, 'UTC')
        AND has({fk_late:Array(UInt32)}, toUInt32(toStartOfHour(ts)))
        AND ingest_ts <= fromUnixTimestamp64Milli({fk_known:Int64}, 'UTC')
      GROUP BY base, exchange, symbol, bucket)`,
    params: {
      fk_late: late.map((h) => h / 1000),
      fk_from: late[0]!,
      fk_to: late[late.length - 1]! + HOUR_MS,
      fk_known: knownByMs
    }
  }
}
