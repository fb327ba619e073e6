/**
 * @module
 * The read phase of one import file, done by the engine: the file is put beside the import (a hard link,
 * or a zip's CSV unpacked once, its CRC-32 checked), ClickHouse's CSV input reads it into a staging
 * table with strict input settings, and one validation query checks every rule of the layout
 * (stage-sql.ts). Nothing reaches the raw tables here. The staged rows then give the totals (rows, time
 * range, markets, funding steps) and the slices of whole hours the write phase moves (writer.ts). A file
 * one statement can check and write by reading it directly (direct-file.ts) skips the staging table: only
 * its time range is read here (its two ends), its lines are checked by that statement and counted beside
 * it (a zip's while it is unpacked).
 *
 * When the engine refuses the file (a line that does not parse, a rule broken), the byte scan of
 * csv-scan.ts reads the file in its worker to name the line and the reason as it always has; only when it
 * finds nothing (a rule only the engine applies) is the engine's own verdict reported, with its line.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Store } from '../../engine/store/store.js'
import { toStoreError } from '../../engine/store/store-error.js'
import { LineCount } from '../../engine/runtime/line-count.js'
import { sqlString } from '../../engine/store/sql-text.js'
import { CsvScanner, type LineSink, type ScanTotals } from './csv-scan.js'
import type { CsvLayout } from './csv-layout.js'
import { compressionOf, openCsvSource } from './file-source.js'
import { newFundingSteps } from './funding-interval.js'
import { ImportError } from './import-error.js'
import { STAGE_PREFIX } from './import-journal.js'
import { scanInWorker } from './import-scan.js'
import { planFile, type FilePlan } from './plan-file.js'
import { firstLine } from './scan-file.js'
import { DIRECT_MAX_ROWS, directTotals } from './direct-file.js'
import { cutSlices, type HourRows, type StageSlice } from './stage-slices.js'
import { hoursQuery, loadStatement, marketsQuery, stageRules, validationQuery, type StageSource } from './stage-sql.js'

/** A file read into its staging table. */
export interface StagedFile {
  readonly plan: FilePlan
  /**
   * the staging table (dropped once the file is written or given up); null when the file is written by one
   * statement reading `source.file` itself (direct-file.ts)
   */
  readonly table: string | null
  /** how it was loaded: the journal reloads it from a link to `source.file` after a crash */
  readonly source: StageSource
  readonly totals: ScanTotals
  readonly slices: StageSlice[]
  /** a file without a staging table: most data rows its statement accepts (stage-sql.ts `directSource`) */
  readonly directMaxRows?: number
  /**
   * false when `totals.rows` is not known yet (0): a plain CSV written without a staging table has its lines
   * counted beside its statement (run-import.ts); a zip's are counted while it is unpacked
   */
  readonly rowsCounted: boolean
}

export interface StageRequest {
  readonly file: string
  readonly label: string
  /** the file's own temporary directory (the staged input goes here) */
  readonly dir: string
  readonly sliceRows?: number | undefined
  /** most data rows of a file written without a staging table (direct-file.ts); 0: always staged */
  readonly directRows?: number | undefined
  readonly market?: 'perp' | 'spot' | undefined
}

const IGNORE: LineSink = { begin: () => undefined, line: () => undefined, end: () => undefined }

/** A new staging table's name (one per file read; the journal drops leftovers at the next start). */
const stageName = (): string => `${STAGE_PREFIX}${crypto.randomBytes(6).toString('hex')}`

/** Links `file` to `to` (a copy on another file system). */
function linkOrCopy(file: string, to: string): void {
  try {
    fs.linkSync(file, to)
  } catch {
    fs.copyFileSync(file, to)
  }
}

/** Decompressed size of a gzip file from its trailer (ISIZE, mod 2^32); a large file is taken as large. */
function gzipSize(file: string, size: number): number {
  const fd = fs.openSync(file, 'r')
  try {
    const b = Buffer.alloc(4)
    fs.readSync(fd, b, 0, 4, Math.max(0, size - 4))
    const isize = b.readUInt32LE(0)
    return size >= 256 * 1024 * 1024 ? Math.max(isize, 2 ** 32) : isize
  } finally {
    fs.closeSync(fd)
  }
}

/** A staged input and, for an unpacked zip, its lines (counted in the unpacking's chunks). */
type StagedInput = Omit<StageSource, 'header'> & { readonly lines?: number }

/** The file as the engine reads it, in `dir`: a link (plain CSV, gzip) or the zip's one CSV, unpacked. */
async function stageInput(file: string, label: string, dir: string): Promise<StagedInput> {
  const kind = compressionOf(file)
  if (kind === 'zip') {
    const to = path.join(dir, 'input.csv')
    const src = await openCsvSource(file, label)
    const out = fs.createWriteStream(to)
    let bytes = 0
    const lines = new LineCount()
    try {
      for await (const chunk of src.chunks) {
        bytes += chunk.length
        lines.add(chunk)
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()))
      }
    } finally {
      await new Promise<void>((r) => out.end(() => r()))
    }
    return { file: to, gzip: false, bytes, lines: lines.lines }
  }
  const to = path.join(dir, kind === 'gzip' ? 'input.csv.gz' : 'input.csv')
  let size: number
  try {
    size = fs.statSync(file).size
  } catch (err) {
    throw new ImportError(label, 0, `cannot read the file (${(err as NodeJS.ErrnoException).code})`, { cause: err })
  }
  linkOrCopy(file, to)
  return { file: to, gzip: kind === 'gzip', bytes: kind === 'gzip' ? gzipSize(to, size) : size }
}

/** The first line of the staged input. */
async function firstLineOf(file: string, label: string): Promise<string | null> {
  const src = await openCsvSource(file, label)
  const { line, first, rest } = await firstLine(src)
  await rest.return?.()
  return first ? line : null
}

/** True when the first line is the layout's header; throws the scan's ImportError for a bad first line. */
function checkFirstLine(label: string, layout: CsvLayout, line: string): boolean {
  const probe = new CsvScanner(label, layout, IGNORE)
  probe.push(Buffer.from(`${line}\n`))
  return probe.totals.rows === 0
}

/** What the engine refused: the line (1-based, 0 when not known) and why. */
class Refused {
  constructor(
    readonly line: number,
    readonly reason: string
  ) {}
}

/** `(at row N)` of a ClickHouse input format error: the N-th row read (1-based). */
function rowOfError(message: string): number {
  const m = /\(at row (\d+)\)/.exec(message)
  return m ? Number(m[1]) : 0
}

type Row = Record<string, string | number | null>

/** Loads and validates; returns the totals, or a `Refused`. */
async function loadAndCheck(
  store: Store,
  layout: CsvLayout,
  table: string,
  src: StageSource
): Promise<{ totals: ScanTotals; hours: HourRows[] } | Refused> {
  const headerLines = src.header ? 1 : 0
  try {
    await store.command(loadStatement(layout, table, src, sqlString))
  } catch (err) {
    const e = toStoreError(err)
    // a full disk or a failing engine is not the file's fault
    if (e.errorClass === 'disk_full' || e.errorClass === 'transient') throw err
    const row = rowOfError(e.message)
    const first = e.message.split('\n')[0]!.replace(/^Code: \d+\. DB::Exception: /, '')
    return new Refused(row > 0 ? row + headerLines : 0, `the engine could not read it: ${first.slice(0, 300)}`)
  }
  const [v] = await store.query<Row>(validationQuery(layout, table))
  const rules = stageRules(layout)
  let worst: Refused | null = null
  rules.forEach((r, i) => {
    if (Number(v![`n${i}`]) === 0) return
    const line = Number(v![`r${i}`]) + 1 + headerLines
    if (!worst || line < worst.line) worst = new Refused(line, r.reason)
  })
  if (worst) return worst
  const totals: ScanTotals = {
    rows: Number(v!['rows']),
    minMs: Number(v!['min_ms']),
    maxMs: Number(v!['max_ms']),
    markets: new Set(),
    funding: new Map()
  }
  if (totals.rows === 0) return new Refused(0, 'the file holds no data rows')
  const markets = marketsQuery(layout, table)
  if (markets) {
    for (const m of await store.query<Row>(markets)) {
      const key = `${m['exchange']}\t${m['symbol']}`
      totals.markets.add(key)
      if (layout.fundingTimeColumn === undefined) continue
      const steps = newFundingSteps()
      if (Number(m['min_step']) > 0) steps.minStep = Number(m['min_step'])
      totals.funding.set(key, steps)
    }
  }
  const hours = (await store.query<Row>(hoursQuery(table))).map((h) => ({
    hour: Number(h['hour']),
    rows: Number(h['rows']),
    minMs: Number(h['min_ms']),
    maxMs: Number(h['max_ms'])
  }))
  return { totals, hours }
}

/**
 * Reads `req.file` into a new staging table and checks it, or, for a file one statement can read and write
 * (direct-file.ts), only counts its rows and reads its time range (the checks run in that statement); throws the file's `ImportError` (the staging
 * table dropped). `progress` is told when the engine starts and ends; `signal` is honoured between steps
 * (a statement in the engine runs to its end).
 */
export async function stageFile(
  store: Store,
  req: StageRequest,
  progress: (fraction: number, rows: number) => void,
  signal?: AbortSignal
): Promise<StagedFile> {
  const { file, label, dir } = req
  const { lines, ...input } = await stageInput(file, label, dir)
  const line = await firstLineOf(input.file, label)
  if (line === null) throw new ImportError(label, 0, 'the file is empty')
  const plan = planFile(label, file, line, req.market)
  const header = checkFirstLine(label, plan.layout, line)
  const source: StageSource = { ...input, header }
  progress(0, 0)
  signal?.throwIfAborted()
  const maxRows = req.directRows ?? DIRECT_MAX_ROWS
  const direct = directTotals(plan, source, maxRows)
  if (direct) {
    const rows = lines === undefined ? 0 : lines - (header ? 1 : 0)
    const totals = { ...direct, rows }
    progress(1, rows)
    const slice = { rows, minMs: direct.minMs, maxMs: direct.maxMs }
    const hours = { startHour: Math.floor(direct.minMs / 3_600_000), lastHour: Math.floor(direct.maxMs / 3_600_000) }
    const counted = lines !== undefined
    return {
      plan,
      table: null,
      source,
      totals,
      slices: [{ ...hours, ...slice }],
      directMaxRows: maxRows,
      rowsCounted: counted
    }
  }
  const table = stageName()
  let kept = false
  try {
    const done = await loadAndCheck(store, plan.layout, table, source)
    signal?.throwIfAborted()
    if (done instanceof Refused) {
      await store.command(`DROP TABLE IF EXISTS ${table}`)
      throw await diagnose(req, done, signal)
    }
    progress(1, done.totals.rows)
    kept = true
    return { plan, table, source, totals: done.totals, slices: cutSlices(done.hours, req.sliceRows), rowsCounted: true }
  } finally {
    if (!kept) await store.command(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined)
  }
}

/**
 * The error of a file the engine refused: the byte scan's (file, line, reason as the scan words them),
 * or the engine's own verdict when the scan passes the file.
 */
async function diagnose(req: StageRequest, refused: Refused, signal?: AbortSignal): Promise<ImportError> {
  const dir = fs.mkdtempSync(path.join(req.dir, 'scan-'))
  try {
    await scanInWorker(
      { file: req.file, label: req.label, dir, sliceRows: req.sliceRows, market: req.market },
      () => undefined,
      signal
    )
  } catch (err) {
    if (err instanceof ImportError) return err
    throw err
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return new ImportError(req.label, refused.line, refused.reason)
}
