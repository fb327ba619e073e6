/**
 * @module
 * One candle export run (`GET /v1/backtest/export`): the query over the timeframe's candle table for the
 * resolved markets and range, encoded in the requested format (encode.ts), with the pinning of merged
 * parts on chDB. The HTTP route validates, resolves symbols, takes a slot, sets headers and pulls the
 * first chunk (`primed`) before answering.
 *
 * Pinning (pinned-parts.ts): rows before the cut are read from merged parts without `FINAL`, the rest
 * with `FINAL` (candle-sql.ts); once the first chunk shows the query has its snapshot of parts, the pin is
 * checked still valid, else the run restarts with `FINAL` everywhere (nothing was yielded yet) and reports
 * the restart.
 *
 * With `knownByMs` (docs/history.md "Known by"), only the trades received by then: when some hour of the
 * range is late (engine/asof/known-at.ts), the run reads the known-by source (known-sources.ts) without
 * pinning; otherwise the table as without it, the same SQL and bytes.
 */
import { candleFrom } from '../history/known-sources.js'
import { dateTimeSeconds } from '../history/sql-bounds.js'
import { marketsCondition, type Market } from '../history/markets.js'
import { TIMEFRAMES, type TimeframeName } from '../history/timeframes.js'
import type { Store } from '../store/store.js'
import { EXPORT_COLUMNS, exportSql, knownExportSql } from './candle-sql.js'
import { encodeExport, type ExportFormat, type ExportSpec } from './encode.js'
import { NO_PIN, pinnedBody, pinnedRead } from './pinned-parts.js'

export interface CandleExportRequest {
  readonly timeframe: TimeframeName
  /** the markets exported (resolved by the caller); rows ordered by base, exchange, symbol, time */
  readonly markets: readonly Market[]
  /** first bucket start, epoch ms (inclusive) */
  readonly fromMs: number
  /** end, epoch ms (exclusive); before `fromMs` it is an empty range */
  readonly toMs: number
  readonly format: ExportFormat
  /** where HDF5 temp files go */
  readonly tmpDir: string
  /** the rows are synthetic (demo data): formats with metadata say so (encode.ts) */
  readonly synthetic: boolean
  /** read partitions that are one merged part without FINAL (see `canPinMergedParts`, pinned-parts.ts) */
  readonly pinMerged: boolean
  /** aborting it cancels the query between blocks (stopping the iterator early does too) */
  readonly signal?: AbortSignal
  /** use only records received by this moment, epoch ms (undefined: everything stored) */
  readonly knownByMs?: number
}

export interface CandleExportEvents {
  /** a pinned part was merged away before the query started: the run restarted with FINAL everywhere */
  readonly onPinRestart?: (table: string) => void
}

/**
 * The bytes of the export file, in order. Nothing runs until the first `next()`; pull it before sending a
 * status (`primed`): the pin, its check and a restart all happen before the first chunk is yielded.
 * Stopping early cancels the query and removes temp files.
 */
export async function* runCandleExport(
  store: Store,
  req: CandleExportRequest,
  events: CandleExportEvents = {}
): AsyncGenerator<Uint8Array> {
  const tf = TIMEFRAMES[req.timeframe]
  const table = tf.table
  const cond = marketsCondition(req.markets)
  const spec: Omit<ExportSpec, 'sql'> = {
    params: {
      ...cond.params,
      bases: [...new Set(req.markets.map((m) => m.base))],
      from: dateTimeSeconds(req.fromMs, 'ceil'),
      to: dateTimeSeconds(Math.max(req.fromMs, req.toMs), 'ceil')
    },
    format: req.format,
    columns: EXPORT_COLUMNS,
    tmpDir: req.tmpDir,
    synthetic: req.synthetic,
    ...(req.signal && { signal: req.signal })
  }
  if (req.knownByMs !== undefined) {
    const known = await candleFrom(store, tf, req.fromMs, Math.max(req.fromMs, req.toMs), req.knownByMs)
    if (known.from !== table) {
      yield* encodeExport(store, {
        ...spec,
        sql: knownExportSql(known.from, cond.sql, tf.span),
        params: { ...spec.params, ...known.params }
      })
      return
    }
  }
  const pin = req.pinMerged
    ? await pinnedRead(store, table, Number(spec.params['from']), Number(spec.params['to']))
    : NO_PIN
  if (pin.parts.length > 0) {
    const body = await pinnedBody(
      store,
      table,
      pin,
      encodeExport(store, {
        ...spec,
        sql: exportSql(table, cond.sql, true),
        params: { ...spec.params, parts: pin.parts, cut: pin.cutS }
      })
    )
    if (body !== null) {
      yield* body
      return
    }
    events.onPinRestart?.(table)
  }
  yield* encodeExport(store, { ...spec, sql: exportSql(table, cond.sql) })
}
