/**
 * @module
 * `GET /v1/backtest/export`: closed OHLCV candles of many markets as one file, streamed from ClickHouse's
 * own output formats straight to the socket (engine/export/export-run.ts). Columns: timestamp (epoch ms), exchange,
 * symbol, base, open, high, low, close, volume_base, volume_quote, trades; rows ordered by base, exchange,
 * symbol, timestamp. Without `exchange`, every venue's market of each symbol is included.
 * Errors found before the first byte (bad parameters, the HDF5 row limit, a failing query) answer with
 * the JSON error envelope; after it the transfer is cut short (no final chunk), never silently truncated.
 */
import path from 'node:path'
import { EXPORT_FORMATS, type ExportFormat } from '../../../engine/export/formats.js'
import { canPinMergedParts } from '../../../engine/export/pinned-parts.js'
import { primed } from '../../../engine/export/primed.js'
import { FREQTRADE_ARCHIVE_TYPE } from '../../../engine/export/freqtrade/archive.js'
import { checkFreqtradeTimeframe } from '../../../engine/export/freqtrade/names.js'
import { releasingWhenDone } from '../../export-slots.js'
import { resolveKnownBy } from '../../../engine/asof/known-by.js'
import { resolveRange } from '../../../engine/history/range.js'
import { bucketStarts, ceilTo, floorTo } from '../../../engine/history/span.js'
import { TIMEFRAMES, type TimeframeName } from '../../../engine/history/timeframes.js'
import { ApiError } from '../../../engine/errors.js'
import { SYNTHETIC_HEADER } from '../../../engine/live/synthetic-data.js'
import { EXPORT_FORMAT_NAMES, ExportQuery } from '../../../schemas/api/history.js'
import { AccessControl } from '../../access/access-control.js'
import type { ServerContext } from '../../context.js'
import type { Route } from '../../http/types.js'

const MAX_SYMBOLS = 300

/** The body of a HEAD answer: no bytes (the adapter sends the headers without a length). */
const NO_CHUNKS: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: async function* () {} }

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

/** 400 unless layout=freqtrade can be written: one exchange (one data directory), a timeframe freqtrade names. */
function checkFreqtradeLayout(timeframe: string, format: string | undefined, exchange: string | undefined): void {
  if (format !== undefined && format !== 'arrow') {
    throw new ApiError(
      'invalid_parameter',
      `layout=freqtrade writes feather (Arrow IPC) files: leave format out or use format=arrow, not ${format}`,
      { param: 'format' }
    )
  }
  if (exchange === undefined) {
    throw new ApiError(
      'invalid_parameter',
      'layout=freqtrade needs exchange: freqtrade keeps one data directory per exchange (user_data/data/<exchange>)',
      { param: 'exchange' }
    )
  }
  checkFreqtradeTimeframe(timeframe)
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
  const pinMerged = canPinMergedParts(ctx.store.kind, ctx.config)
  const onPinRestart = (table: string): void => {
    ctx.exports.pinRestarts++
    ctx.log.info({ table }, 'export: a pinned part was merged away before the query started; reading with FINAL')
  }
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
        const freqtrade = q['layout'] === 'freqtrade'
        const exchange = q['exchange'] as string | undefined
        if (freqtrade) checkFreqtradeLayout(tf.name, q['format'] as string | undefined, exchange)
        else if (q['format'] === undefined) {
          throw new ApiError('invalid_parameter', `format is required: one of ${EXPORT_FORMAT_NAMES.join(', ')}`, {
            param: 'format'
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
        const knownByMs = resolveKnownBy(q['known_by'] as string | undefined, t)
        const markets = await ctx.markets.resolveList(symbols, exchange, {
          param: 'symbols',
          everyVenue: true,
          check: (base) => AccessControl.checkSymbol(req.plan, base, 'symbols')
        })
        const from = ceilTo(range.fromMs, tf.span)
        const to = Math.min(ceilTo(range.toMs, tf.span), floorTo(t, tf.span))
        // the most rows this export can have (every market, every bucket): a progress bar's total
        const maxRows = String(markets.length * bucketStarts(from, Math.max(from, to), tf.span).length)
        if (freqtrade) {
          // Arrow (~0.3 CPU-s to load) is loaded by the first freqtrade-layout export, not at every start
          const { freqtradeMarkets, runFreqtradeExport } =
            await import('../../../engine/export/freqtrade/freqtrade-run.js')
          const ftMarkets = freqtradeMarkets(markets)
          const headers = {
            'content-type': FREQTRADE_ARCHIVE_TYPE,
            'content-disposition': `attachment; filename="${fileName(symbols, tf.name, from, to, `_freqtrade_${exchange}.tar`, synthetic)}"`,
            'x-export-markets': String(markets.length),
            'x-export-max-rows': maxRows,
            ...(synthetic && { [SYNTHETIC_HEADER]: 'true' })
          }
          if (req.method === 'HEAD') return { status: 200, headers, body: { stream: NO_CHUNKS } }
          const run = runFreqtradeExport(ctx.store, {
            timeframe: tf.name,
            markets: ftMarkets,
            fromMs: from,
            toMs: to,
            synthetic,
            mtimeMs: t,
            pinMerged,
            ...(knownByMs !== undefined && { knownByMs })
          })
          return streamed(headers, run, req.path)
        }
        const requested = q['format'] as string
        const format: ExportFormat =
          requested === 'json' ? (q['json_layout'] === 'array' ? 'json' : 'ndjson') : (requested as ExportFormat)
        const info = EXPORT_FORMATS[format]
        const headers = {
          'content-type': info.contentType,
          'content-disposition': `attachment; filename="${fileName(symbols, tf.name, from, to, info.extension, synthetic)}"`,
          'x-export-markets': String(markets.length),
          // the most rows this export can have (every market, every bucket): a progress bar's total
          'x-export-max-rows': maxRows,
          ...(synthetic && { [SYNTHETIC_HEADER]: 'true' })
        }
        // HEAD: the headers alone, without taking a slot or running the query
        if (req.method === 'HEAD') return { status: 200, headers, body: { stream: NO_CHUNKS } }
        // the encoders (Parquet, Arrow, HDF5 writers) are loaded by the first export, not at start
        const { runCandleExport } = await import('../../../engine/export/export-run.js')
        const run = runCandleExport(
          ctx.store,
          {
            timeframe: tf.name,
            markets,
            fromMs: from,
            toMs: to,
            format,
            tmpDir: path.join(ctx.config.dataDir, 'tmp', 'export'),
            synthetic,
            pinMerged,
            ...(knownByMs !== undefined && { knownByMs })
          },
          { onPinRestart }
        )
        return streamed(headers, run, req.path)
      }
    }
  ]

  /** Takes an export slot, pulls the first chunk (errors before it answer as JSON), then streams the rest. */
  async function streamed(headers: Record<string, string>, run: AsyncIterable<Uint8Array>, reqPath: string) {
    const release = ctx.exports.take()
    let body: AsyncIterableIterator<Uint8Array>
    try {
      body = releasingWhenDone(await primed(run), release)
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
            { err: err instanceof Error ? err.message : String(err), path: reqPath },
            'export failed mid-stream'
          )
      }
    }
  }
}
