/**
 * @module
 * The replay worker's line loop and chunk assembly (workers/replay-worker.ts), without the thread, so tests
 * can run it in process. Each line of a recording (bytes, record/replay-blocks.ts) goes first to the
 * Binance aggTrade byte path (sources/binance/aggtrade-fast.ts), which writes its TSV row straight into
 * the trades chunk's bytes; any line it refuses is decoded and goes through the general path
 * (record/replay-lines.ts: the venue's normalizer, as the in-thread replay runs it), its records encoded by
 * the same TSV encoder as before. Lines are handled strictly in order, and `take` cuts exactly the chunks
 * `encodeRecords(records, true)` cuts from the same records (one per kind, kinds in order of first
 * appearance, rows in line order), so the batches and dedup tokens are the in-thread path's.
 */
import { KIND_SPECS, columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { NormalizedRecord, RecordKind, RecordOf } from '../../engine/records/types.js'
import { ByteBuffer } from '../../engine/runtime/byte-buffer.js'
import { chunkOf, makeChunk, type EncodedChunk } from '../encoded-chunk.js'
import { BinanceNormalizer } from '../normalize/binance.js'
import { ReplayLines } from '../record/replay-lines.js'
import { AggTradeFastPath } from '../sources/binance/aggtrade-fast.js'
import { CHUNK_RECORDS } from '../sources/feed/feed-pump.js'

const NEWLINE = 10
const TRADE_COLUMNS = columnsOf('trade')
/** First capacity of the trade rows, bytes: about 5,000 trade rows (a replay chunk). */
const TRADE_BUFFER_BYTES = 1 << 19

export class ReplayChunks {
  readonly lines = new ReplayLines()
  /** rows (records) gathered since the last `take` */
  rows = 0
  /** the byte path, null when the Binance normalizer's state is not readable (all lines then go the general way) */
  readonly fast: AggTradeFastPath | null
  private readonly trades = new ByteBuffer(TRADE_BUFFER_BYTES)
  private tradeRows = 0
  /** records of other kinds, in order */
  private others: NormalizedRecord[] = []
  /** kinds in order of first appearance since the last `take` */
  private kinds: RecordKind[] = []
  /** newest exchange time of the rows since the last `take`, epoch ms */
  private maxTs = -Infinity
  private readonly out: NormalizedRecord[] = []

  constructor() {
    const binance = this.lines.venueNormalizer('binance')
    this.fast = binance instanceof BinanceNormalizer ? AggTradeFastPath.over(binance, this.lines.counters) : null
  }

  /**
   * Handles the lines of `b` from `i` until a chunk's worth of rows is gathered (`full`: take the chunks
   * before handling more lines; the in-thread path's cut, every CHUNK_RECORDS records) or `b` ends; returns
   * the index to go on from.
   */
  fill(b: Buffer, i: number): number {
    while (i < b.length && !this.full) i = this.line(b, i)
    return i
  }

  /** Whether the rows gathered make a chunk. */
  get full(): boolean {
    return this.rows >= CHUNK_RECORDS
  }

  /** Handles the line at `b[i..]` (up to its newline or the end of `b`); returns the index after it. */
  private line(b: Buffer, i: number): number {
    const fast = this.fast
    if (fast !== null) {
      const nl = fast.take(b, i, this.trades)
      if (nl >= 0) {
        const ts = fast.rowTs
        if (!Number.isNaN(ts)) {
          if (this.tradeRows++ === 0) this.kinds.push('trade')
          this.rows++
          if (ts > this.maxTs) this.maxTs = ts
        }
        return nl + 1
      }
    }
    let end = b.indexOf(NEWLINE, i)
    if (end < 0) end = b.length
    this.text(b.toString('utf8', i, end))
    return end + 1
  }

  /** Handles one line of text through the general path. */
  private text(line: string): void {
    const lines = this.lines
    if (Number.isNaN(lines.read(line))) return
    const out = this.out
    out.length = 0
    lines.normalize(out)
    for (let k = 0; k < out.length; k++) this.add(out[k]!)
  }

  private add(r: NormalizedRecord): void {
    this.rows++
    if (r.ts > this.maxTs) this.maxTs = r.ts
    if (r.kind === 'trade') {
      if (this.tradeRows++ === 0) this.kinds.push('trade')
      this.trades.raw(encodeTsv('trade', [r]))
      return
    }
    if (!this.kinds.includes(r.kind)) this.kinds.push(r.kind)
    this.others.push(r)
  }

  /** The chunks of the rows gathered since the last call (bulk chunks); counts them as handed on. */
  take(): EncodedChunk[] {
    const chunks: EncodedChunk[] = []
    for (const kind of this.kinds) {
      if (kind === 'trade') {
        chunks.push(chunkOf(KIND_SPECS.trade.table, TRADE_COLUMNS, this.tradeRows, this.trades.take(), true))
        continue
      }
      const group = this.others.filter((r) => r.kind === kind) as RecordOf<typeof kind>[]
      chunks.push(makeChunk(KIND_SPECS[kind].table, columnsOf(kind), group.length, encodeTsv(kind, group), true))
    }
    this.lines.handedRows(this.rows, this.maxTs)
    this.rows = 0
    this.tradeRows = 0
    this.others = []
    this.kinds = []
    this.maxTs = -Infinity
    return chunks
  }
}
