/**
 * @module
 * `GET /v1/backtest/export`: closed OHLCV candles of many markets as one file, streamed from ClickHouse's
 * own output formats straight to the socket (engine/export). Columns: timestamp (epoch ms), exchange,
 * symbol, base, open, high, low, close, volume_base, volume_quote, trades; rows ordered by base, exchange,
 * symbol, timestamp. Without `exchange`, every venue's market of each symbol is included.
 * Errors found before the first byte (bad parameters, the HDF5 row limit, a failing query) answer with
 * the JSON error envelope; after it the transfer is cut short (no final chunk), never silently truncated.
 */
import path from 'node:path'
import { encodeExport, EXPORT_FORMATS, type ExportFormat, type ExportSpec } from '../../../engine/export/encode.js'
import { releasingWhenDone } from '../../export-slots.js'
import { mergedParts, NO_MERGED_PARTS, stillActive } from '../../../engine/store/merged-parts.js'
import { marketsCondition } from '../../../engine/history/markets.js'
import { resolveRange } from '../../../engine/history/range.js'
import { bucketStarts, ceilTo, floorTo } from '../../../engine/history/span.js'
import { dateTimeSeconds } from '../../../engine/history/sql-bounds.js'
import { TIMEFRAMES, type TimeframeName } from '../../../engine/history/timeframes.js'
import { ApiError } from '../../../engine/errors.js'
import { SYNTHETIC_HEADER } from '../../../engine/live/synthetic-data.js'
import { ExportQuery } from '../../../schemas/api/history.js'
import { AccessControl } from '../../access/access-control.js'
import type { ServerContext } from '../../context.js'
import type { Route } from '../../http/types.js'

const MAX_SYMBOLS = 300

/** The body of a HEAD answer: no bytes (the adapter sends the headers without a length). */
const NO_CHUNKS: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: async function* () {} }

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
 * With `pinned` (engine/store/merged-parts.ts), partitions that are one merged part are read without
 * `FINAL` from exactly the pinned parts (`{parts}`), the others with `FINAL` (`{partitions}` excluded);
 * ClickHouse merges the two key-ordered branches (MergingSortedTransform, no full sort).
 */
export function exportSql(table: string, marketsSql: string, pinned = false): string {
  const where = `base IN {bases:Array(String)} AND ${marketsSql}
        AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')`
  const states = `SELECT base, exchange, symbol, bucket, finalizeAggregation(open) AS o, high, low,
        finalizeAggregation(close) AS c, volume_base, volume_quote, trades`
  const inner = pinned
    ? `${states} FROM ${table} WHERE _part IN {parts:Array(String)} AND ${where}
      UNION ALL
      ${states} FROM ${table} FINAL WHERE _partition_id NOT IN {partitions:Array(String)} AND ${where}`
    : `${states} FROM ${table} FINAL WHERE ${where}`
  return `SELECT toInt64(toUnixTimestamp(bucket)) * 1000 AS timestamp, exchange, symbol, base,
      o AS open, high, low, c AS close, volume_base, volume_quote, trades
    FROM (${inner})
    ORDER BY base, exchange, symbol, bucket`
}

/**
 * Pulls the first chunk now (errors before any byte become a JSON error answer) and returns an iterable
 * that yields it and then the rest. Unlike a generator that has not started, its `return()` always reaches
 * the source, so a client gone before the first write still cancels the query and removes temp files.
 */
export async function primed(source: AsyncIterable<Uint8Array>): Promise<AsyncIterableIterator<Uint8Array>> {
  const it = source[Symbol.asyncIterator]()
  let held: IteratorResult<Uint8Array> | null = await it.next()
  const iterator: AsyncIterableIterator<Uint8Array> = {
    [Symbol.asyncIterator]: () => iterator,
    next() {
      const first = held
      held = null
      return first ? Promise.resolve(first) : it.next()
    },
    async return() {
      held = null
      await it.return?.()
      return { done: true, value: undefined }
    }
  }
  return iterator
}

/** Prefix of the file name of an export of synthetic (demo) data, e.g. `tidewatch_SYNTHETIC_BTC_1h_...`. */
const SYNTHETIC_FILE_PREFIX = 'tidewatch_SYNTHETIC_'

function fileName(
  symbols: readonly string[],
  tf: string,
  from: number,
  to: number,
  ext: string,
  synthetic: boolean
): string {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const names =
    symbols.length > 4 ? `${symbols.slice(0, 4).join('-')}-and-${symbols.length - 4}-more` : symbols.join('-')
  const prefix = synthetic ? SYNTHETIC_FILE_PREFIX : 'tidewatch_'
  return `${prefix}${names.replace(/[^A-Za-z0-9-]/g, '_')}_${tf}_${day(from)}_${day(to)}${ext}`
}

/**
 * Starts the export and pulls its first chunk (see `primed`). On chDB the partitions that are one merged
 * part are pinned and read without `FINAL`; once the first chunk shows the query has its snapshot of parts,
 * the pin is checked still valid, else the export restarts with `FINAL` everywhere (nothing was sent yet).
 */
export async function openExport(
  ctx: Pick<ServerContext, 'store' | 'log' | 'exports'>,
  table: string,
  marketsSql: string,
  spec: Omit<ExportSpec, 'sql'>,
  pinning: boolean
): Promise<AsyncIterableIterator<Uint8Array>> {
  const pin = pinning
    ? await mergedParts(ctx.store, table, Number(spec.params['from']), Number(spec.params['to']))
    : NO_MERGED_PARTS
  if (pin.parts.length > 0) {
    const body = await primed(
      encodeExport(ctx.store, {
        ...spec,
        sql: exportSql(table, marketsSql, true),
        params: { ...spec.params, parts: pin.parts, partitions: pin.partitions }
      })
    )
    let valid: boolean
    try {
      valid = await stillActive(ctx.store, table, pin)
    } catch (err) {
      await body.return?.() // the query holds a store connection until it is cancelled
      throw err
    }
    if (valid) return body
    await body.return?.()
    ctx.exports.pinRestarts++
    ctx.log.info({ table }, 'export: a pinned part was merged away before the query started; reading with FINAL')
  }
  return primed(encodeExport(ctx.store, { ...spec, sql: exportSql(table, marketsSql) }))
}

/**
 * The export route. On a service holding synthetic (demo) data (`ctx.synthetic`) every answer, HEAD too,
 * has header `x-tidewatch-synthetic: true` and a file name starting `tidewatch_SYNTHETIC_`, and Parquet,
 * Arrow and HDF5 files say so in their metadata (docs/export-formats.md, "Synthetic data"). `synthetic` is
 * optional only because `historyRoutes` passes a narrower context; the server's context always has it.
 */
export function exportRoutes(
  ctx: Pick<ServerContext, 'store' | 'markets' | 'config' | 'log' | 'exports'> &
    Partial<Pick<ServerContext, 'synthetic'>>,
  now: () => number = Date.now
): Route[] {
  const synthetic = ctx.synthetic === true
  // the pin check after the first chunk needs a store connection no export holds: the config keeps the
  // export cap below the chDB pool (engine/config.ts). chDB only: a server's parts live per shard.
  const pinning =
    ctx.config.exportPinMerged && ctx.store.kind === 'chdb' && ctx.config.chdbPoolSize > ctx.config.exportMaxConcurrent
  return [
    {
      method: 'GET',
      path: '/v1/backtest/export',
      access: 'key',
      feature: 'export',
      tags: ['backtest'],
      summary: 'Bulk OHLCV export as CSV, NDJSON/JSON, Parquet, Arrow or HDF5, streamed',
      description:
        'Closed candles of every market of the symbols (or only `exchange`), timestamp in epoch ms. HDF5 holds at most 1,000,000 rows (413 above it: use parquet). See docs/history.md and docs/export-formats.md.',
      query: ExportQuery,
      handler: async (req) => {
        const q = req.q
        const tf = TIMEFRAMES[q['timeframe'] as TimeframeName]
        const symbols = q['symbols'] as string[]
        if (symbols.length > MAX_SYMBOLS) {
          throw new ApiError('invalid_parameter', `symbols may name at most ${MAX_SYMBOLS} symbols`, {
            param: 'symbols'
          })
        }
        const t = now()
        const range = resolveRange(
          {
            lookback: q['lookback'] as string | undefined,
            start_time: q['start_time'] as number | undefined,
            end_time: q['end_time'] as number | undefined
          },
          {
            defaultLookback: tf.maxLookback,
            maxLookback: { span: tf.maxLookback, what: `timeframe ${tf.name}` },
            plan: req.plan
          },
          t
        )
        const exchange = q['exchange'] as string | undefined
        const markets = await ctx.markets.resolveList(symbols, q['exchange'] as string | undefined, {
          param: 'symbols',
          everyVenue: true,
          check: (base) => AccessControl.checkSymbol(req.plan, base, 'symbols')
        })
        const cond = marketsCondition(markets)
        const from = ceilTo(range.fromMs, tf.span)
        const to = Math.min(ceilTo(range.toMs, tf.span), floorTo(t, tf.span))
        const requested = q['format'] as string
        const format: ExportFormat =
          requested === 'json' ? (q['json_layout'] === 'array' ? 'json' : 'ndjson') : (requested as ExportFormat)
        const spec = {
          params: {
            ...cond.params,
            bases: [...new Set(markets.map((m) => m.base))],
            from: dateTimeSeconds(from, 'ceil'),
            to: dateTimeSeconds(Math.max(from, to), 'ceil')
          },
          format,
          columns: EXPORT_COLUMNS,
          tmpDir: path.join(ctx.config.dataDir, 'tmp', 'export'),
          synthetic
        }
        const info = EXPORT_FORMATS[format]
        const headers = {
          'content-type': info.contentType,
          'content-disposition': `attachment; filename="${fileName(symbols, tf.name, from, to, info.extension, synthetic)}"`,
          'x-export-markets': String(markets.length),
          // the most rows this export can have (every market, every bucket): a progress bar's total
          'x-export-max-rows': String(markets.length * bucketStarts(from, Math.max(from, to), tf.span).length),
          ...(synthetic && { [SYNTHETIC_HEADER]: 'true' })
        }
        // HEAD: the headers alone, without taking a slot or running the query
        if (req.method === 'HEAD') return { status: 200, headers, body: { stream: NO_CHUNKS } }
        const release = ctx.exports.take()
        let body: AsyncIterableIterator<Uint8Array>
        try {
          body = releasingWhenDone(await openExport(ctx, tf.table, cond.sql, spec, pinning), release)
        } catch (err) {
          release()
          throw err
        }
        return {
          status: 200,
          headers,
          body: {
            stream: body,
            onError: (err: unknown) =>
              ctx.log.error(
                { err: err instanceof Error ? err.message : String(err), path: req.path },
                'export failed mid-stream'
              )
          }
        }
      }
    }
  ]
}
