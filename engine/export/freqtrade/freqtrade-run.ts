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
 * - `futures/<PAIR>-1h-mark.feather`: for markets with mark prices stored in the range, hourly candles of
 *   the mark price (freqtrade's mark candles, volume 0);
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
import { nativeBlocks, nativeBlockViews, type NativeBlock, type NativeBlockView } from '../native-blocks.js'
import { readAhead, type ReadAhead } from './read-ahead.js'
import { FreqtradeArchive } from './archive.js'
import { FeatherWriter, FREQTRADE_SCHEMA } from './feather-file.js'
import type { Gap } from './gaps.js'
import { knownCandleRead, knownFundingRead } from './freqtrade-known.js'
import { candleSql, fundingSql, markSql, pinnedNative, readNative } from './freqtrade-sql.js'
import { candleFiles } from './candle-files.js'
import { freqtradeFilePath, freqtradePair, type FreqtradeMarket } from './names.js'

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
  /** read merged parts without FINAL (`canPinMergedParts`, engine/export/pinned-parts.ts) */
  readonly pinMerged: boolean
  /** aborting it cancels the query between blocks (stopping the iterator early does too) */
  readonly signal?: AbortSignal
  /** use only records received by this moment, epoch ms (freqtrade-known.ts; undefined: everything stored) */
  readonly knownByMs?: number
}

const HOUR_MS = 3_600_000
/**
 * Bytes of the funding query's Native output read ahead while the candle files stream (its rows are 20
 * bytes: 100 markets x 2 years of 8-hourly settlements are ~4.4 MB); past it the query waits for the reader.
 */
const FUNDING_READ_AHEAD_BYTES = 16 * 1024 * 1024

/** The hours the funding and mark files cover: from the range's first whole hour to its end rounded up, epoch ms. */
interface HourRange {
  readonly fromMs: number
  readonly toMs: number
}

function hourRange(req: FreqtradeExportRequest): HourRange {
  const fromMs = Math.ceil(req.fromMs / HOUR_MS) * HOUR_MS
  return { fromMs, toMs: Math.max(fromMs, Math.ceil(req.toMs / HOUR_MS) * HOUR_MS) }
}

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
  const hours = hourRange(req)
  // with `known_by` and a late hour in the range: the known-by reads (freqtrade-known.ts), never pinned
  const kb = req.knownByMs
  const knownCandles = kb === undefined ? null : await knownCandleRead(store, tf, cond.sql, req.fromMs, toMs, kb)
  const knownFunding =
    kb === undefined ? null : await knownFundingRead(store, cond.sql, hours.fromMs - HOUR_MS, hours.toMs - HOUR_MS, kb)
  const fundingSqlFor = knownFunding ? () => knownFunding.sql : (pinned: boolean) => fundingSql(cond.sql, pinned)
  // funding_1h holds the hour before each settlement: [first settlement - 1h, end - 1h)
  const fundingParams = {
    ...params,
    from: hours.fromMs / 1000 - 3600,
    to: hours.toMs / 1000 - 3600,
    ...knownFunding?.params
  }
  // the funding query runs while the candle files stream, started once the candle query has its first block
  // (its connection, its pin checked; errors before it are still answered as JSON)
  const started: { funding: ReadAhead | null } = { funding: null }
  try {
    const sqlFor = knownCandles ? () => knownCandles.sql : (pinned: boolean) => candleSql(tf.table, cond.sql, pinned)
    const candleParams = { ...params, ...knownCandles?.params }
    const candles = pinnedNative(store, tf.table, sqlFor, candleParams, req.pinMerged && !knownCandles, req.signal)
    yield* candleFiles(nativeBlockViews(candles), {
      markets: req.markets,
      archive,
      writer,
      candleType: 'futures',
      timeframe: tf.name,
      span: tf.span,
      fromMs: req.fromMs,
      toMs,
      everyMarket: true,
      onFirstBlock: () => {
        started.funding = readAhead(
          pinnedNative(store, 'funding_1h', fundingSqlFor, fundingParams, req.pinMerged && !knownFunding, req.signal),
          FUNDING_READ_AHEAD_BYTES
        )
        return archive.directory()
      }
    })
    if (started.funding === null) throw new Error('freqtrade export: the candle files ended before they started')
    yield* fundingFiles(nativeBlocks(started.funding), req, writer, archive, hours)
  } finally {
    await started.funding?.return() // cancels the funding query when the export stops early
  }
  // the mark query after the funding one: one read-ahead at a time can always get a store connection
  const markParams = {
    ...params,
    from: hours.fromMs / 1000,
    to: hours.toMs / 1000,
    ...(kb === undefined ? {} : { known: kb })
  }
  const mark = nativeBlockViews(readNative(store, markSql(cond.sql, kb !== undefined), markParams, req.signal))
  yield* markFiles(mark, req, writer, archive, hours)
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
  blocks: AsyncIterable<NativeBlock>,
  req: FreqtradeExportRequest,
  writer: FeatherWriter,
  archive: FreqtradeArchive,
  { fromMs, toMs }: HourRange
): AsyncGenerator<Uint8Array> {
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

/**
 * One `mark` file per market with mark prices stored in the range: hourly candles of the mark price
 * readings kept in the raw `funding` table (markSql), at the hours the funding files use (`[H, H + 1h)` for
 * H from the range's first whole hour up to its end rounded up), so freqtrade's join of funding and mark
 * rows on `date` finds the mark price at each settlement. The raw table keeps 90 days: older hours have no
 * row and show as gaps.
 */
async function* markFiles(
  blocks: AsyncIterable<NativeBlockView>,
  req: FreqtradeExportRequest,
  writer: FeatherWriter,
  archive: FreqtradeArchive,
  { fromMs, toMs }: HourRange
): AsyncGenerator<Uint8Array> {
  yield* candleFiles(blocks, {
    markets: req.markets,
    archive,
    writer,
    candleType: 'mark',
    timeframe: '1h',
    span: TIMEFRAMES['1h'].span,
    fromMs,
    toMs,
    everyMarket: false
  })
}
