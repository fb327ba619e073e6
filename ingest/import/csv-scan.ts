/**
 * @module
 * Checks every line of one CSV file against its layout before anything is written, and hands each good
 * line's bytes to a sink (the slice files of slices.ts). It works on the decompressed bytes as they arrive:
 * lines are found and checked in place, cells are never turned into strings (except the exchange and
 * symbol of multi-market files, and only when they change), so a line costs no allocation. The first bad
 * line stops the scan with an `ImportError` naming the file and line.
 */
import { checkCell, intBound, readDatetime, readUint, type IntBound } from './csv-cells.js'
import { MICROS_FROM, type CsvLayout } from './csv-layout.js'
import { addFundingTime, newFundingSteps, type FundingSteps } from './funding-interval.js'
import { ImportError } from './import-error.js'

/** Latest accepted row time: 2100-01-01, epoch ms (matches record validation). */
const MAX_TS_MS = 4_102_444_800_000
const NL = 10
const CR = 13
const COMMA = 44

/** Receives the lines that passed, as byte ranges of the buffer given to `begin` (the newline included). */
export interface LineSink {
  begin(buf: Buffer): void
  line(ms: number, start: number, end: number): void
  end(): void
}

export interface ScanTotals {
  /** data lines (the header excluded) */
  rows: number
  minMs: number
  maxMs: number
  /** distinct `exchange\tsymbol` of multi-market layouts */
  readonly markets: Set<string>
  /** per `exchange\tsymbol`, the steps of its funding times (layouts with `fundingTimeColumn`) */
  readonly funding: Map<string, FundingSteps>
}

export class CsvScanner {
  readonly totals: ScanTotals = { rows: 0, minMs: Infinity, maxMs: -Infinity, markets: new Set(), funding: new Map() }
  private rest: Buffer | null = null
  private lineNo = 0
  private headerDone = false
  /** cell bounds of the current line: start, end pairs */
  private readonly cells: Int32Array
  /** per column, the bound of an integer column (its type's), else undefined */
  private readonly bounds: readonly (IntBound | undefined)[]
  private lastMarket = Buffer.alloc(0)
  /** funding steps of the market of the last line */
  private fundingSteps: FundingSteps = newFundingSteps()

  constructor(
    private readonly file: string,
    private readonly layout: CsvLayout,
    private readonly sink: LineSink
  ) {
    this.cells = new Int32Array(layout.columns.length * 2)
    this.bounds = layout.columns.map((c) =>
      c.check === 'uint' || c.check === 'int' ? intBound(c.check, c.chType) : undefined
    )
  }

  push(chunk: Buffer): void {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk
    this.rest = null
    this.sink.begin(buf)
    let start = 0
    for (;;) {
      const nl = buf.indexOf(NL, start)
      if (nl === -1) break
      this.take(buf, start, nl)
      start = nl + 1
    }
    this.sink.end()
    if (start < buf.length) this.rest = Buffer.from(buf.subarray(start))
  }

  /** Ends the scan; a last line without a newline is taken as a line. Throws when the file held no rows. */
  finish(): ScanTotals {
    if (this.rest) {
      // the sink writes whole lines, so the last one gets its newline here
      const last = Buffer.concat([this.rest, Buffer.from('\n')])
      this.rest = null
      this.sink.begin(last)
      this.take(last, 0, last.length - 1)
      this.sink.end()
    }
    if (this.totals.rows === 0) throw new ImportError(this.file, 0, 'the file holds no data rows')
    return this.totals
  }

  private fail(reason: string): never {
    throw new ImportError(this.file, this.lineNo, reason)
  }

  private take(buf: Buffer, start: number, nl: number): void {
    this.lineNo++
    const end = nl > start && buf[nl - 1] === CR ? nl - 1 : nl
    if (!this.headerDone) {
      this.headerDone = true
      if (this.header(buf, start, end)) return
    }
    if (end === start) this.fail('empty line')
    const ms = this.check(buf, start, end)
    const t = this.totals
    t.rows++
    if (ms < t.minMs) t.minMs = ms
    if (ms > t.maxMs) t.maxMs = ms
    this.sink.line(ms, start, nl + 1)
  }

  /** True when the line is the header (and it matches); a data line of an `optional` header layout is false. */
  private header(buf: Buffer, start: number, end: number): boolean {
    const names = this.layout.columns.map((c) => c.name).join(',')
    let s = start
    if (buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3 // UTF-8 BOM
    const first = buf[s] ?? 0
    const looksLikeHeader = (first >= 65 && first <= 90) || (first >= 97 && first <= 122) || first === 95
    if (!looksLikeHeader && this.layout.header === 'optional') return false
    const found = buf.toString('utf8', s, end)
    if (found !== names) {
      this.fail(
        `expected the ${this.layout.description} columns ${names}; found ${JSON.stringify(found.slice(0, 200))}`
      )
    }
    return true
  }

  /** Checks one data line; returns its time in epoch ms. */
  private check(buf: Buffer, start: number, end: number): number {
    const cols = this.layout.columns
    const cells = this.cells
    let s = start
    let n = 0
    for (let i = start; i <= end; i++) {
      if (i === end || buf[i] === COMMA) {
        if (n < cols.length) {
          cells[2 * n] = s
          cells[2 * n + 1] = i
        }
        n++
        s = i + 1
      }
    }
    if (n !== cols.length) {
      this.fail(`expected ${cols.length} columns (${cols.map((c) => c.name).join(',')}); found ${n}`)
    }
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c]!
      const cs = cells[2 * c]!
      const ce = cells[2 * c + 1]!
      if (cs === ce && col.optional) continue
      const problem = checkCell(col.check, buf, cs, ce, this.bounds[c])
      if (problem)
        this.fail(`${col.name} ${problem} (found ${JSON.stringify(buf.toString('utf8', cs, Math.min(ce, cs + 40)))})`)
    }
    const m = this.layout.marketColumns
    if (m) this.market(buf, cells[2 * m.exchange]!, cells[2 * m.exchange + 1]!, cells[2 * m.symbol + 1]!)
    const f = this.layout.fundingTimeColumn
    if (f !== undefined && cells[2 * f]! < cells[2 * f + 1]!) {
      const v = readUint(buf, cells[2 * f]!, cells[2 * f + 1]!)
      addFundingTime(this.fundingSteps, this.layout.time === 'micros' ? Math.floor(v / 1000) : v)
    }
    return this.time(buf, cells[2 * this.layout.timeColumn]!, cells[2 * this.layout.timeColumn + 1]!)
  }

  private time(buf: Buffer, s: number, e: number): number {
    const col = this.layout.columns[this.layout.timeColumn]!
    if (s === e) this.fail(`${col.name} is empty`)
    let ms: number
    if (this.layout.time === 'datetime') ms = readDatetime(buf, s)
    else {
      const v = readUint(buf, s, e)
      ms = this.layout.time === 'micros' || v >= MICROS_FROM ? Math.floor(v / 1000) : v
    }
    if (!(ms > 0 && ms <= MAX_TS_MS)) this.fail(`${col.name} is not a time between 1970 and 2100`)
    return ms
  }

  /** Records the `exchange,symbol` cells of a multi-market layout (they are adjacent), decoding only on change. */
  private market(buf: Buffer, s: number, exchangeEnd: number, e: number): void {
    const last = this.lastMarket
    if (e - s === last.length && buf.compare(last, 0, last.length, s, e) === 0) return
    this.lastMarket = Buffer.from(buf.subarray(s, e))
    const key = `${buf.toString('utf8', s, exchangeEnd)}\t${buf.toString('utf8', exchangeEnd + 1, e)}`
    this.totals.markets.add(key)
    if (this.layout.fundingTimeColumn === undefined) return
    let steps = this.totals.funding.get(key)
    if (!steps) this.totals.funding.set(key, (steps = newFundingSteps()))
    this.fundingSteps = steps
  }
}
