/**
 * @module
 * The whale flow aggregates as they were known at a moment (`known_by`, docs/history.md "Known by"): a
 * whale history read selects from whale_flows_1h outside the late hours (engine/asof/known-at.ts) and, for
 * each late hour, the same sums recomputed from the raw `whale_transfers` received by then (the view
 * whale_flows_1h_mv's aggregation). Daily grids use this hourly source when some hour is late. No late
 * hour: the plain table, the same SQL as without `known_by`.
 */
import { lateHours } from '../asof/known-at.js'
import type { Store } from '../store/store.js'

const HOUR_MS = 3_600_000

/** A whale flow source: the table or subquery a read selects `FROM`, and the parameters it binds. */
export interface WhaleFrom {
  readonly from: string
  readonly params: Readonly<Record<string, number | readonly number[]>>
}

/** The flow columns the reads use, of one type across the UNION ALL. */
const HOURLY = `token, bucket, toUInt64(events) AS events, toFloat64(usd_in) AS usd_in, toFloat64(usd_out) AS usd_out,
  toFloat64(usd_total) AS usd_total, wallets`

const RAW = `token, toDateTime(toStartOfHour(ts), 'UTC') AS bucket, count() AS events,
  sumIf(usd_value, event_type = 'transfer_in') AS usd_in, sumIf(usd_value, event_type = 'transfer_out') AS usd_out,
  sum(usd_value) AS usd_total, uniqState(address) AS wallets`

/**
 * What a whale flow read over [fromMs, toMs) selects from: `table` when `knownByMs` is undefined or no hour
 * is late, else whale_flows_1h and the raw transfers of the late hours received by `knownByMs`.
 */
export async function whaleFrom(
  store: Store,
  table: 'whale_flows_1h' | 'whale_flows_1d',
  fromMs: number,
  toMs: number,
  knownByMs: number | undefined
): Promise<WhaleFrom> {
  if (knownByMs === undefined) return { from: table, params: {} }
  const late = await lateHours(store, 'whale_transfers', fromMs, toMs, knownByMs)
  if (late.length === 0) return { from: table, params: {} }
  return {
    from: `(SELECT ${HOURLY} FROM whale_flows_1h WHERE NOT has({wk_late:Array(UInt32)}, toUInt32(bucket))
      UNION ALL
      SELECT ${RAW} FROM whale_transfers
      WHERE ts >= fromUnixTimestamp64Milli({wk_from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({wk_to:Int64}, 'UTC')
        AND has({wk_late:Array(UInt32)}, toUInt32(toStartOfHour(ts)))
        AND ingest_ts <= fromUnixTimestamp64Milli({wk_known:Int64}, 'UTC')
      GROUP BY token, bucket)`,
    params: {
      wk_late: late.map((h) => h / 1000),
      wk_from: late[0]!,
      wk_to: late[late.length - 1]! + HOUR_MS,
      wk_known: knownByMs
    }
  }
}
