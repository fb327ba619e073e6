/**
 * @module
 * OHLCV feather files of one candle type (`futures` candles, `mark` candles) from a query's Native blocks:
 * columns `m` (UInt32, 1-based market index), `date` (Int64 ns), open, high, low, close, volume (Float64),
 * rows in market order then time order (the query's ORDER BY, `freqtradeMarkets`). The column bytes become
 * the files' record batches as they are (feather-file.ts): a market's rows are one batch per block they
 * span, and the file is framed once its last row has come.
 */
import type { Span } from '../../history/span.js'
import type { NativeBlockView, NativeColumnView } from '../native-blocks.js'
import type { FreqtradeArchive } from './archive.js'
import type { FeatherBatch, FeatherWriter } from './feather-file.js'
import { GapTracker } from './gaps.js'
import { freqtradeFilePath, type FreqtradeCandleType, type FreqtradeMarket } from './names.js'

export interface CandleFilesSpec {
  readonly markets: readonly FreqtradeMarket[]
  readonly archive: FreqtradeArchive
  readonly writer: FeatherWriter
  readonly candleType: FreqtradeCandleType
  /** the timeframe in the file name (freqtrade's spelling) and its bucket span */
  readonly timeframe: string
  readonly span: Span
  /** the range the gaps are judged over, `[fromMs, toMs)`, epoch ms, aligned to `span` */
  readonly fromMs: number
  readonly toMs: number
  /** every market gets a file (without rows if it has none); else only markets with rows */
  readonly everyMarket: boolean
  /** chunks sent before anything else, once the query's first block came (or at the end without one) */
  readonly onFirstBlock?: () => Uint8Array
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

/** The files' tar entries, in market order. */
export async function* candleFiles(
  blocks: AsyncIterable<NativeBlockView>,
  spec: CandleFilesSpec
): AsyncGenerator<Uint8Array> {
  const { markets, archive, writer } = spec
  const open = (index: number): OpenFile => ({
    index,
    batches: [],
    gaps: new GapTracker(spec.fromMs, spec.toMs, spec.span),
    first: null,
    last: null
  })
  const close = (f: OpenFile): Uint8Array[] => {
    const { market, pair } = markets[f.index]!
    return archive.file(
      {
        path: freqtradeFilePath(pair, spec.timeframe, spec.candleType),
        pair,
        symbol: market.symbol,
        candle_type: spec.candleType,
        timeframe: spec.timeframe,
        first: f.first,
        last: f.last,
        gaps: f.gaps.finish()
      },
      writer.file(f.batches)
    )
  }
  /** the files of the markets without rows before `index` (only with `everyMarket`) */
  function* empty(from: number, index: number): Generator<Uint8Array> {
    if (spec.everyMarket) for (let k = from; k < index; k++) yield* close(open(k))
  }

  let started = false
  let current: OpenFile | null = null
  for await (const block of blocks) {
    if (!started) {
      started = true
      if (spec.onFirstBlock) yield spec.onFirstBlock()
    }
    const [mCol, dateCol, ...values] = block.columns as [NativeColumnView, NativeColumnView, ...NativeColumnView[]]
    const mv = viewOf(mCol.bytes)
    const dv = viewOf(dateCol.bytes)
    let i = 0
    while (i < block.rows) {
      const index = mv.getUint32(i * 4, true) - 1
      if (index < (current?.index ?? 0) || index >= markets.length) {
        // the markets' order is the query's ORDER BY (freqtradeMarkets): anything else would repeat a file
        throw new Error(`freqtrade export: ${spec.candleType} rows of market ${index} out of order`)
      }
      if (current?.index !== index) {
        const next = current === null ? 0 : current.index + 1
        if (current !== null) yield* close(current)
        yield* empty(next, index)
        current = open(index)
      }
      let j = i + 1
      while (j < block.rows && mv.getUint32(j * 4, true) - 1 === index) j++
      const first = msAt(dv, i)
      const last = msAt(dv, j - 1)
      // a run without holes is seen in one step; otherwise row by row
      if (!current.gaps.seeRun(first, last, j - i)) for (let k = i; k < j; k++) current.gaps.see(msAt(dv, k))
      current.first ??= first
      current.last = last
      current.batches.push({
        rows: j - i,
        columns: [dateCol.bytes.subarray(i * 8, j * 8), ...values.map((c) => c.bytes.subarray(i * 8, j * 8))]
      })
      i = j
    }
  }
  if (!started && spec.onFirstBlock) yield spec.onFirstBlock()
  const next = current === null ? 0 : current.index + 1
  if (current !== null) yield* close(current)
  yield* empty(next, markets.length)
}
