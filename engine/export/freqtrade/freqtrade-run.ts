/**
 * @module
 * One freqtrade-layout export (`GET /v1/backtest/export?layout=freqtrade`): a tar archive that unpacks into
 * freqtrade's data directory for one exchange (`user_data/data/<exchange>`), as its feather data handler
 * reads futures data (docs/export-formats.md, "freqtrade layout"):
 *
 * - `futures/<PAIR>-<tf>-futures.feather`: the candles of every requested market, one file each, in the
 *   order base, symbol (a market without rows in the range gets a file without rows);
 * - `futures/<PAIR>-1h-funding_rate.feather`: for markets with stored funding readings in the range, one
 *   row per settlement (freqtrade's funding-rate candles: `open` is the rate, the other columns 0);
 * - `tidewatch-manifest.json`, last: every file's SHA-256, rows and gaps.
 *
 * Candle bytes go from chDB's Native blocks into the feather files without a copy (feather-file.ts).
 */
import { Schema } from 'apache-arrow'
import { marketsCondition, type Market } from '../../history/markets.js'
import { dateTimeSeconds } from '../../history/sql-bounds.js'
import { TIMEFRAMES, type TimeframeName } from '../../history/timeframes.js'
import type { Params, Store } from '../../store/store.js'
import { SYNTHETIC_METADATA } from '../formats.js'
import { nativeBlocks, nativeBlockViews, type NativeColumnView } from '../native-blocks.js'
import { FreqtradeArchive } from './archive.js'
import { FeatherWriter, FREQTRADE_SCHEMA, type FeatherBatch } from './feather-file.js'
import { GapTracker, type Gap } from './gaps.js'
import { knownCandleRead, knownFundingRead } from './freqtrade-known.js'
import { candleSql, fundingSql, pinnedNative } from './freqtrade-sql.js'
import { freqtradeFilePath, freqtradePair } from './names.js'

/** A market to export and the CCXT pair freqtrade names it by. */
export interface FreqtradeMarket {
  readonly market: Market
  readonly pair: string
}

export interface FreqtradeExportRequest {
  readonly timeframe: TimeframeName
  /** one exchange's markets, from `freqtradeMarkets` (sorted by base, symbol) */
  readonly markets: readonly FreqtradeMarket[]
  /** first bucket start, epoch ms, aligned to the timeframe (inclusive) */
  readonly fromMs: number
  /** end, epoch ms, aligned (exclusive) */
  readonly toMs: number
  /** the rows are synthetic: every file's schema carries `tidewatch.synthetic`, the manifest `synthetic` */
  readonly synthetic: boolean
  /** modification time of the archive's entries, epoch ms */
  readonly mtimeMs: number
  /** read merged parts without FINAL (`canPinMergedParts`, engine/export/export-run.ts) */
  readonly pinMerged: boolean
  /** aborting it cancels the query between blocks (stopping the iterator early does too) */
  readonly signal?: AbortSignal
  /** use only records received by this moment, epoch ms (freqtrade-known.ts; undefined: everything stored) */
  readonly knownByMs?: number
}

const HOUR_MS = 3_600_000

/**
 * The markets of one exchange with their freqtrade pairs, in the export's row order (base, symbol; the
 * order of the candle tables' sorting key). 400 for a market freqtrade cannot name (names.ts).
 */
export function freqtradeMarkets(markets: readonly Market[]): FreqtradeMarket[] {
  const exchanges = new Set(markets.map((m) => m.exchange))
  if (exchanges.size > 1) throw new Error('a freqtrade export covers one exchange') // the route asks for one
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return [...markets]
    .sort((a, b) => cmp(a.base, b.base) || cmp(a.symbol, b.symbol))
    .map((market) => ({ market, pair: freqtradePair(market) }))
}

/** `bytes` as a DataView (the view's offset need not be aligned). */
const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength)

/** Epoch ms of the Int64 nanoseconds at row `i`: exact for whole milliseconds below 2^63 ns. */
function msAt(v: DataView, i: number): number {
  return Math.round((v.getInt32(i * 8 + 4, true) * 4_294_967_296 + v.getUint32(i * 8, true)) / 1e6)
}

interface OpenFile {
  readonly index: number
  readonly batches: FeatherBatch[]
  readonly gaps: GapTracker
  first: number | null
  last: number | null
}

/** The archive's bytes, in order. Nothing runs until the first `next()`. */
export async function* runFreqtradeExport(store: Store, req: FreqtradeExportRequest): AsyncGenerator<Uint8Array> {
  const tf = TIMEFRAMES[req.timeframe]
  const schema = req.synthetic ? new Schema(FREQTRADE_SCHEMA.fields, new Map(SYNTHETIC_METADATA)) : FREQTRADE_SCHEMA
  const writer = new FeatherWriter(schema)
  const archive = new FreqtradeArchive(Math.floor(req.mtimeMs / 1000))
  const markets = req.markets.map((m) => m.market)
  const cond = marketsCondition(markets)
  const params: Params = {
    ...cond.params,
    syms: markets.map((m) => m.symbol),
    bases: [...new Set(markets.map((m) => m.base))],
    from: dateTimeSeconds(req.fromMs, 'ceil'),
    to: dateTimeSeconds(Math.max(req.fromMs, req.toMs), 'ceil')
  }
  const toMs = Math.max(req.fromMs, req.toMs)
  const open = (index: number): OpenFile => ({
    index,
    batches: [],
    gaps: new GapTracker(req.fromMs, toMs, tf.span),
    first: null,
    last: null
  })
  const close = (f: OpenFile): Uint8Array[] => {
    const { market, pair } = req.markets[f.index]!
    return archive.file(
      {
        path: freqtradeFilePath(pair, tf.name, 'futures'),
        pair,
        symbol: market.symbol,
        candle_type: 'futures',
        timeframe: tf.name,
        first: f.first,
        last: f.last,
        gaps: f.gaps.finish()
      },
      writer.file(f.batches)
    )
  }

  let dirSent = false
  let current: OpenFile | null = null
  const known =
    req.knownByMs === undefined ? null : await knownCandleRead(store, tf, cond.sql, req.fromMs, toMs, req.knownByMs)
  const sqlFor = known ? () => known.sql : (pinned: boolean) => candleSql(tf.table, cond.sql, pinned)
  const blocks = nativeBlockViews(
    pinnedNative(store, tf.table, sqlFor, { ...params, ...known?.params }, req.pinMerged && !known, req.signal)
  )
  for await (const block of blocks) {
    if (!dirSent) {
      yield archive.directory() // after the query's first block: errors before it are still answered as JSON
      dirSent = true
    }
    const [mCol, dateCol, ...values] = block.columns as [NativeColumnView, NativeColumnView, ...NativeColumnView[]]
    const mv = viewOf(mCol.bytes)
    const dv = viewOf(dateCol.bytes)
    let i = 0
    while (i < block.rows) {
      const index = mv.getUint32(i * 4, true) - 1
      if (index < (current?.index ?? 0) || index >= req.markets.length) {
        // the markets' order is the query's ORDER BY (freqtradeMarkets): anything else would repeat a file
        throw new Error(`freqtrade export: rows of market ${index} out of order`)
      }
      if (current?.index !== index) {
        let next = current === null ? 0 : current.index + 1
        if (current !== null) yield* close(current)
        for (; next < index; next++) yield* close(open(next)) // markets without rows
        current = open(index)
      }
      let j = i
      while (j < block.rows && mv.getUint32(j * 4, true) - 1 === index) current.gaps.see(msAt(dv, j++))
      current.first ??= msAt(dv, i)
      current.last = msAt(dv, j - 1)
      current.batches.push({
        rows: j - i,
        columns: [dateCol.bytes.subarray(i * 8, j * 8), ...values.map((c) => c.bytes.subarray(i * 8, j * 8))]
      })
      i = j
    }
  }
  if (!dirSent) yield archive.directory()
  let next = current === null ? 0 : current.index + 1
  if (current !== null) yield* close(current)
  for (; next < req.markets.length; next++) yield* close(open(next))

  yield* fundingFiles(store, req, writer, archive, params, cond.sql)
  yield* archive.end({
    exchange: markets[0]?.exchange ?? '',
    timeframe: tf.name,
    start: req.fromMs,
    end: toMs,
    synthetic: req.synthetic
  })
}

/**
 * One `funding_rate` file per market with a settlement in the range: a row at each settlement time H (a
 * multiple of the market's interval since 00:00 UTC, the venues' schedule) with the last reading of the hour
 * [H - 1h, H): the venues publish the running interval's rate continuously and settle the last one.
 * freqtrade sums `open` x mark price over these rows, so only settlements have a row. Gaps: settlements
 * missing, judged by the interval each settlement carries (the next is due one interval after the last).
 */
async function* fundingFiles(
  store: Store,
  req: FreqtradeExportRequest,
  writer: FeatherWriter,
  archive: FreqtradeArchive,
  params: Params,
  marketsSql: string
): AsyncGenerator<Uint8Array> {
  const fromMs = Math.ceil(req.fromMs / HOUR_MS) * HOUR_MS
  const toMs = Math.max(fromMs, Math.ceil(req.toMs / HOUR_MS) * HOUR_MS)
  const hourParams = { ...params, from: (fromMs - HOUR_MS) / 1000, to: (toMs - HOUR_MS) / 1000 }
  // one market at a time: settlement times (epoch ms), rates, gaps; the next settlement due (epoch ms)
  let index = -1
  let dates: number[] = []
  let rates: number[] = []
  let gaps: Gap[] = []
  let due = 0
  const flush = (): Uint8Array[] => {
    const { market, pair } = req.markets[index]!
    const n = dates.length
    if (due < toMs) gaps.push({ start: due, end: toMs })
    const date = new BigInt64Array(n)
    for (let k = 0; k < n; k++) date[k] = BigInt(dates[k]!) * 1_000_000n
    const zeros = new Uint8Array(n * 8)
    const bytes = (a: BigInt64Array | Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
    return archive.file(
      {
        path: freqtradeFilePath(pair, '1h', 'funding_rate'),
        pair,
        symbol: market.symbol,
        candle_type: 'funding_rate',
        timeframe: '1h',
        first: dates[0]!,
        last: dates[n - 1]!,
        gaps
      },
      writer.file([{ rows: n, columns: [bytes(date), bytes(Float64Array.from(rates)), zeros, zeros, zeros, zeros] }])
    )
  }
  const known =
    req.knownByMs === undefined
      ? null
      : await knownFundingRead(store, marketsSql, fromMs - HOUR_MS, toMs - HOUR_MS, req.knownByMs)
  const sqlFor = known ? () => known.sql : (pinned: boolean) => fundingSql(marketsSql, pinned)
  const blocks = nativeBlocks(
    pinnedNative(store, 'funding_1h', sqlFor, { ...hourParams, ...known?.params }, req.pinMerged && !known, req.signal)
  )
  for await (const block of blocks) {
    const [m, s, rate, ih] = block.columns.map((c) => c.values) as [Uint32Array, Uint32Array, Float64Array, Uint32Array]
    for (let i = 0; i < block.rows; i++) {
      const step = ih[i]! * HOUR_MS
      const settlement = s[i]! * 1000 + HOUR_MS // the end of the reading's hour
      if (m[i]! - 1 !== index) {
        if (m[i]! - 1 < index || m[i]! > req.markets.length)
          throw new Error('freqtrade export: funding rows out of order')
        if (index >= 0) yield* flush()
        index = m[i]! - 1
        dates = []
        rates = []
        gaps = []
        due = Math.ceil(fromMs / step) * step
      }
      if (settlement > due) gaps.push({ start: due, end: settlement })
      due = settlement + step
      dates.push(settlement)
      rates.push(rate[i]!)
    }
  }
  if (index >= 0) yield* flush()
}
