/**
 * @module
 * The freqtrade layout's reads with `known_by` (docs/history.md "Known by"): when some hour of the range is
 * late (engine/asof/known-at.ts), the candles and the funding hours come from the known-by sources
 * (engine/history/known-sources.ts, funding-known.ts), their states merged by a GROUP BY on the key instead of
 * `FINAL`, in the same columns, types and order as freqtrade-sql.ts; no pinning. No late hour: null, and
 * the run reads the tables as without `known_by` (same SQL and bytes).
 */
import { fundingFrom } from '../../history/funding-known.js'
import { candleFrom } from '../../history/known-sources.js'
import type { Timeframe } from '../../history/timeframes.js'
import type { Store } from '../../store/store.js'
import { knownExportSql } from '../candle-sql.js'
import { exportSelect } from '../columns.js'
import { CANDLE_COLUMNS, FUNDING_COLUMNS } from './freqtrade-sql.js'

/** A read over a known-by source: its SQL and the parameters it binds besides the run's. */
export interface KnownRead {
  readonly sql: string
  readonly params: Readonly<Record<string, number | readonly number[]>>
}

/** The candle query as known by `knownByMs` over bucket starts [fromMs, toMs); null when no hour is late. */
export async function knownCandleRead(
  store: Store,
  tf: Timeframe,
  marketsSql: string,
  fromMs: number,
  toMs: number,
  knownByMs: number
): Promise<KnownRead | null> {
  const src = await candleFrom(store, tf, fromMs, toMs, knownByMs)
  if (src.from === tf.table) return null
  return {
    sql: exportSelect(
      `SELECT indexOf({syms:Array(String)}, symbol) AS m, timestamp * 1000000 AS date,
        open, high, low, close, volume_base AS volume
      FROM (${knownExportSql(src.from, marketsSql, tf.span)})`,
      CANDLE_COLUMNS
    ),
    params: src.params
  }
}

/**
 * The funding query (freqtrade-sql.ts `fundingSql`: the hours ending at a settlement, in key order) as known
 * by `knownByMs` over hour starts [fromMs, toMs); null when no hour is late.
 */
export async function knownFundingRead(
  store: Store,
  marketsSql: string,
  fromMs: number,
  toMs: number,
  knownByMs: number
): Promise<KnownRead | null> {
  const src = await fundingFrom(store, 'funding_1h', { fromMs, toMs }, knownByMs)
  if (src.from === 'funding_1h') return null
  return {
    sql: exportSelect(
      `SELECT indexOf({syms:Array(String)}, symbol) AS m, toUInt32(bucket) AS s, rate, ih
       FROM (SELECT base, exchange, symbol, bucket, argMaxMerge(rate_last) AS rate, max(interval_hours) AS ih
         FROM ${src.from}
         WHERE base IN {bases:Array(String)} AND ${marketsSql}
           AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')
         GROUP BY base, exchange, symbol, bucket)
       WHERE ih > 0 AND (toUInt32(bucket) + 3600) % (3600 * greatest(toUInt32(ih), 1)) = 0
       ORDER BY base, exchange, symbol, bucket`,
      FUNDING_COLUMNS
    ),
    params: src.params
  }
}
