/**
 * @module
 * Imports files one after the other into a store: for each, verify the `.CHECKSUM` (when present) while the
 * engine reads the file into a staging table and checks every line (stage-file.ts), then move the staged
 * rows into the raw tables (writer.ts) and drop the staging table. The next file's read phase runs while
 * the current file is written (its writes wait their turn), so a run of several files keeps the engine
 * busy: at most two files are staged at once. The first file that fails stops the run with its
 * `ImportError`; files before it stay imported, nothing of the failed file is written. Used by
 * `tidewatch import` on a data directory it opened itself and by the server's `POST /v1/admin/import`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { silentLogger, type Logger } from '../../engine/log.js'
import type { Store } from '../../engine/store/store.js'
import { sqlString } from '../../engine/store/sql-text.js'
import { fileIdentity, hasChecksumFile, verifyChecksum } from './checksum.js'
import { DIRECT_MAX_ROWS } from './direct-file.js'
import { compressionOf } from './file-source.js'
import { ImportJournal } from './import-journal.js'
import type { ScanTotals } from './csv-scan.js'
import { ImportError } from './import-error.js'
import { stageFile, type StagedFile, type StageRequest } from './stage-file.js'
import { DirectWriteFailed, directReadRefuses, writeSlices } from './writer.js'

export type ImportPhase = 'checksum' | 'reading' | 'writing' | 'done'

export interface ImportProgress {
  /** the file as given */
  readonly file: string
  /** 0-based index of the file in the run, and the number of files */
  readonly index: number
  readonly files: number
  readonly phase: ImportPhase
  /** share of the current phase done, 0..1 */
  readonly fraction: number
  /** data lines checked so far in this file */
  readonly rows: number
}

export interface FileResult {
  readonly file: string
  readonly source: 'binance' | 'tardis'
  readonly description: string
  readonly rows: number
  /** first and last row time, epoch ms */
  readonly from: number
  readonly to: number
  readonly tables: readonly string[]
  /** a `.CHECKSUM` file was there and matched */
  readonly checksum: boolean
  /** how the file was read where it matters (e.g. a funding interval the file did not show) */
  readonly notes: readonly string[]
}

export interface ImportOptions {
  /** where staged files go (removed after each file); best on the data directory's disk */
  readonly tmpDir: string
  /** the import journal (`importJournalDir(DATA_DIR)`); same disk as `tmpDir`, so staged files are linked, not copied */
  readonly journalDir: string
  /** where journal replays are reported; default silent */
  readonly log?: Logger
  /** rows per slice statement; default `SLICE_ROWS` (tests use small slices to get several) */
  readonly sliceRows?: number
  /**
   * most data rows of a file written by one statement reading the file itself, without a staging table
   * (direct-file.ts); default `sliceRows` when that is set, else `DIRECT_MAX_ROWS`; 0: every file is staged
   */
  readonly directRows?: number
  /** market of Binance klines (the files do not say); default perp */
  readonly market?: 'perp' | 'spot'
  readonly onProgress?: (p: ImportProgress) => void
  /** checked between files and phases */
  readonly signal?: AbortSignal
}

/** A file whose read phase passed: its rows wait in a staging table for the write phase. */
interface ReadFile {
  readonly file: string
  /** the file's own temporary directory (its staged input); removed once the file is written or given up */
  readonly dir: string
  readonly staged: StagedFile
  /** the file's identity, naming it in dedup tokens (checksum.ts `fileIdentity`) */
  readonly fileId: string
  readonly checked: boolean
  /**
   * the staged input's lines, counted beside the write when the staging did not count the rows
   * (`staged.rowsCounted` false: a plain CSV written by one statement); null when counted
   */
  readonly lines: Promise<number> | null
}

/** Drops a staging table (none for a file written without one). */
async function dropStage(store: Store, staged: StagedFile): Promise<void> {
  if (staged.table !== null) await store.command(`DROP TABLE IF EXISTS ${staged.table}`).catch(() => undefined)
}

/** Drops the file's staging table and removes its directory (once its line count, if any, has ended). */
async function release(store: Store, read: ReadFile): Promise<void> {
  await read.lines?.catch(() => undefined)
  await dropStage(store, read.staged)
  fs.rmSync(read.dir, { recursive: true, force: true })
}

/** The staging request of a file of the run. */
function stageRequest(file: string, dir: string, opts: ImportOptions, direct: boolean): StageRequest {
  const directRows = direct ? (opts.directRows ?? opts.sliceRows) : 0
  return { file, label: file, dir, sliceRows: opts.sliceRows, directRows, market: opts.market }
}

/**
 * The read phase of one file: the staged input, and the engine reading it into a staging table and checking
 * every line, or, for a file written by one statement (direct-file.ts), only its two ends. With a
 * `.CHECKSUM` beside the file its SHA-256 is computed meanwhile and its verdict taken before the write
 * phase (and before the file's own error, so a file that fails both reports the checksum): chDB cannot
 * stop a statement once it runs, and the rows are visible when it ends. Without one no digest is needed
 * (tokens name the file by its identity), and a plain CSV written by one statement has its lines counted
 * by the engine while that statement runs (`lines`, `countLines`). Throws the file's `ImportError` with nothing left behind.
 */
async function readOne(
  store: Store,
  file: string,
  opts: ImportOptions,
  report: Report,
  signal?: AbortSignal
): Promise<ReadFile> {
  const label = file
  report('checksum', 0, 0)
  fs.mkdirSync(opts.tmpDir, { recursive: true })
  const dir = fs.mkdtempSync(path.join(opts.tmpDir, 'import-'))
  // the staged input of a plain CSV is a link to the file itself: one read gives the digest and the lines
  const plain = compressionOf(file) === 'none'
  const checksum = hasChecksumFile(file) ? verifyChecksum(file, label, signal, plain) : null
  checksum?.catch(() => undefined) // awaited below, first
  let staged: StagedFile | null = null
  try {
    try {
      staged = await stageFile(
        store,
        stageRequest(file, dir, opts, true),
        (fraction, rows) => report('reading', fraction, rows),
        signal
      )
    } catch (err) {
      if (signal?.aborted) throw signal.reason // stopped: the stop's reason, not the hashing it cut short
      await checksum // a checksum failure is reported before the file's own
      throw err
    }
    const sum = await checksum
    let lines: Promise<number> | null = null
    if (!staged.rowsCounted) {
      const counted = sum?.lines
      lines =
        counted !== null && counted !== undefined ? Promise.resolve(counted) : countLines(store, staged.source.file)
      lines.catch(() => undefined) // awaited after the statement
    }
    return { file, dir, staged, fileId: fileIdentity(file), checked: sum !== null, lines }
  } catch (err) {
    if (staged) await dropStage(store, staged)
    fs.rmSync(dir, { recursive: true, force: true })
    throw err
  }
}

/**
 * The lines of a plain CSV, counted by the engine (`LineAsString`) on a session of its own while the
 * file's statement runs on another: the store's pool has at least two (ChdbStore's default 4, the CLI's 2).
 */
async function countLines(store: Store, file: string): Promise<number> {
  const [row] = await store.query<{ n: number | string }>(
    `SELECT count() AS n FROM file(${sqlString(file)}, 'LineAsString')`
  )
  return Number(row!.n)
}

/** The write phase of a file whose read phase passed: its slices, in time order (writer.ts). */
async function writeOne(
  store: Store,
  journal: ImportJournal,
  read: ReadFile,
  opts: ImportOptions,
  report: Report
): Promise<FileResult> {
  const { file, fileId, checked } = read
  const { plan } = read.staged
  let { totals } = read.staged
  const params = plan.params(totals)
  const write = (staged: StagedFile) =>
    writeSlices(store, journal, staged, params, fileId, (done, total) => report('writing', done / total, totals.rows))
  report('writing', 0, totals.rows)
  try {
    await write(read.staged)
    // the statement checked and wrote every line; its count, taken meanwhile, is what the file held
    if (read.lines) totals = { ...totals, rows: (await read.lines) - (read.staged.source.header ? 1 : 0) }
  } catch (err) {
    if (!(err instanceof DirectWriteFailed)) throw err
    totals = await writeStaged(store, journal, read, err, opts, report, write)
  }
  report('done', 1, totals.rows)
  const notes = plan.notes(totals)
  for (const note of notes) opts.log?.warn({ file }, note)
  return {
    file,
    source: plan.source,
    description: plan.layout.description,
    rows: totals.rows,
    from: totals.minMs,
    to: totals.maxMs,
    tables: plan.layout.targets.filter((t) => !t.ledger).map((t) => t.table),
    checksum: checked,
    notes
  }
}

type Report = (phase: ImportPhase, fraction: number, rows: number) => void

/**
 * After the one statement of a file without a staging table failed: the file is staged and checked. A file
 * the staging refuses (a bad line: its `ImportError`, worded as always), with rows outside the range of
 * its first and last line, or that the statement's own read refuses (`directReadRefuses`: a shape its
 * input does not take, such as quoted cells) failed that statement while it was read, before it wrote
 * anything: its journal entry is dropped, and the file is written from the staging table. Otherwise the
 * statement failed in its write, and its error is thrown, its entry kept for the next run as any failed
 * statement's.
 * A file of more rows than the statement accepts (its count is not taken before it) is written from the
 * staging table too. Returns the staged totals.
 */
async function writeStaged(
  store: Store,
  journal: ImportJournal,
  read: ReadFile,
  failed: DirectWriteFailed,
  opts: ImportOptions,
  report: Report,
  write: (staged: StagedFile) => Promise<void>
): Promise<ScanTotals> {
  const direct = read.staged.totals
  const dir = fs.mkdtempSync(path.join(read.dir, 'staged-'))
  let staged: StagedFile
  try {
    staged = await stageFile(store, stageRequest(read.file, dir, opts, false), (f, rows) => report('reading', f, rows))
  } catch (err) {
    if (err instanceof ImportError) journal.discard(failed.entry)
    throw err
  }
  try {
    const { minMs, maxMs, rows } = staged.totals
    const maxRows = read.staged.directMaxRows ?? DIRECT_MAX_ROWS
    const inRange = minMs >= direct.minMs && maxMs <= direct.maxMs && rows <= maxRows
    // accepted by the staging table and in range: the statement failed in its write unless its read (a
    // stricter input than the staging table's, stage-sql.ts `directInputSettings`) refuses the file
    if (inRange && !(await directReadRefuses(store, read.staged))) throw failed.cause
    journal.discard(failed.entry)
    await write(staged)
    return staged.totals
  } finally {
    await dropStage(store, staged)
  }
}

/**
 * A file's progress reports. The next file's read phase runs while the current file is written, and the
 * callers show one file at a time (a progress line, the server's event stream): until the file becomes
 * current (`show`) its reports are held, the latest one kept, and given when it does.
 */
class FileReports {
  private held: [ImportPhase, number, number] | null = null
  private shown = false

  constructor(private readonly emit: Report) {}

  readonly report: Report = (phase, fraction, rows) => {
    if (this.shown) this.emit(phase, fraction, rows)
    else this.held = [phase, fraction, rows]
  }

  show(): void {
    this.shown = true
    if (this.held) this.emit(...this.held)
    this.held = null
  }
}

/**
 * Imports `files` in order; throws the first file's `ImportError` (earlier files stay written). Statements
 * left in the journal by an earlier run (a crash, or a statement that failed) are completed first, so the
 * coverage of this run sees them whole.
 */
export async function importFiles(store: Store, files: readonly string[], opts: ImportOptions): Promise<FileResult[]> {
  const journal = new ImportJournal(opts.journalDir)
  await journal.recover(store, opts.log ?? silentLogger())
  const results: FileResult[] = []
  // stops the next file's read phase when the run ends early (a failed write, the caller's signal)
  const stopAhead = new AbortController()
  const signal = opts.signal ? AbortSignal.any([opts.signal, stopAhead.signal]) : stopAhead.signal
  const start = (index: number): { reports: FileReports; read: Promise<ReadFile> } => {
    const file = files[index]!
    const reports = new FileReports((phase, fraction, rows) =>
      opts.onProgress?.({ file, index, files: files.length, phase, fraction, rows })
    )
    const read = readOne(store, file, opts, reports.report, signal)
    read.catch(() => undefined) // its error is thrown when the file's turn comes
    return { reports, read }
  }
  opts.signal?.throwIfAborted()
  let next = files.length > 0 ? start(0) : null
  try {
    for (let index = 0; index < files.length; index++) {
      opts.signal?.throwIfAborted()
      const { reports, read } = next!
      reports.show()
      const file = await read
      try {
        opts.signal?.throwIfAborted()
        // the next file is read (checksum, staged and checked by the engine) while this one is written; its
        // writes still wait for this file's, so its coverage sees this file whole
        next = index + 1 < files.length ? start(index + 1) : null
        results.push(await writeOne(store, journal, file, opts, reports.report))
      } finally {
        await release(store, file)
      }
    }
    return results
  } finally {
    if (next) {
      // the run ended before the file read ahead was written: stop its read, drop what it staged
      stopAhead.abort()
      const left = await next.read.catch(() => null)
      if (left) await release(store, left)
    }
  }
}
