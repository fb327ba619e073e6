/**
 * @module
 * Time bounds of the historical reads as SQL parameters. The stored time columns are `DateTime` (UInt32
 * seconds, UTC: 1970-01-01 00:00:00 to 2106-02-07 06:28:15), so nothing is stored outside that span. A
 * bound computed from a request can lie outside it: a lookback or a `timestamp` reaching before 1970 gives
 * a negative bound, an epoch-ms parameter near its maximum (year 2286) one past 2106. Bound to a
 * `{name:UInt32}` parameter, such a value made ClickHouse refuse the query (a 500 to the client).
 *
 * Clamping a bound into the DateTime span selects the same rows under `col >= from` and `col < to`: every
 * stored value is at or after 0, and none after the last second (never a bucket start: buckets are whole
 * minutes). An inclusive upper bound (`col <= hi`) below 0 must be skipped by the caller instead: clamped
 * to 0 it would match a row at 1970-01-01 00:00:00.
 */

/** The last second a `DateTime` holds (2106-02-07 06:28:15 UTC), the UInt32 maximum. */
export const DATETIME_MAX_SECONDS = 4_294_967_295

/**
 * Epoch seconds of the bound `ms` (rounded by `round`), clamped to what a `DateTime` holds, for a
 * `{name:UInt32}` parameter compared with a DateTime column.
 */
export function dateTimeSeconds(ms: number, round: 'floor' | 'ceil'): number {
  const s = round === 'floor' ? Math.floor(ms / 1000) : Math.ceil(ms / 1000)
  return Math.min(Math.max(s, 0), DATETIME_MAX_SECONDS)
}
