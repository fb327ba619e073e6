/**
 * @module
 * Imports files one after the other into a store: for each, verify the `.CHECKSUM` (when present), check
 * every line and split the file into slices in a temporary directory, then write the slices (writer.ts).
 * The first file that fails stops the run with its `ImportError`; files before it stay imported, nothing
 * of the failed file is written. Used by `tidewatch import` on a data directory it opened itself and by
 * the server's `POST /v1/admin/import`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { silentLogger, type Logger } from '../../engine/log.js'
import type { Store } from '../../engine/store/store.js'
import { verifyChecksum } from './checksum.js'
import { CsvScanner } from './csv-scan.js'
import { openCsvSource, type CsvSource } from './file-source.js'
import { ImportError } from './import-error.js'
import { ImportJournal } from './import-journal.js'
import { planFile, type FilePlan } from './plan-file.js'
import { SliceWriter } from './slices.js'
import { writeSlices } from './writer.js'

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
  /** where slice files go (removed after each file); best on the data directory's disk */
  readonly tmpDir: string
  /** the import journal (`importJournalDir(DATA_DIR)`); same disk as `tmpDir`, so slices are linked, not copied */
  readonly journalDir: string
  /** where journal replays are reported; default silent */
  readonly log?: Logger
  /** lines per slice file; default `SLICE_ROWS` (tests use small slices to get several) */
  readonly sliceRows?: number
  /** market of Binance klines (the files do not say); default perp */
  readonly market?: 'perp' | 'spot'
  readonly onProgress?: (p: ImportProgress) => void
  /** checked between files and phases */
  readonly signal?: AbortSignal
}

/** The first chunk and its first line, then the rest of the stream. */
async function firstLine(
  source: CsvSource
): Promise<{ line: string; first: Buffer | null; rest: AsyncIterator<Buffer> }> {
  const it = source.chunks[Symbol.asyncIterator]()
  let first: Buffer | null = null
  for (;;) {
    const next = await it.next()
    if (next.done) break
    first = first ? Buffer.concat([first, next.value]) : next.value
    const nl = first.indexOf(10)
    if (nl !== -1 || first.length > 65_536)
      return { line: first.toString('utf8', 0, nl === -1 ? 200 : nl), first, rest: it }
  }
  return { line: first ? first.toString('utf8') : '', first, rest: it }
}

async function scanFile(
  file: string,
  label: string,
  dir: string,
  opts: ImportOptions,
  report: (phase: ImportPhase, fraction: number, rows: number) => void
): Promise<{ plan: FilePlan; scanner: CsvScanner; slices: SliceWriter }> {
  const source = await openCsvSource(file, label)
  const { line, first, rest } = await firstLine(source)
  if (!first) throw new ImportError(label, 0, 'the file is empty')
  const plan = planFile(label, file, line, opts.market)
  const slices = new SliceWriter(dir, opts.sliceRows)
  const scanner = new CsvScanner(label, plan.layout, slices)
  let shown = 0
  try {
    scanner.push(first)
    for (;;) {
      const next = await rest.next()
      if (next.done) break
      scanner.push(next.value)
      if (Date.now() - shown > 200) {
        shown = Date.now()
        report('reading', source.progress(), scanner.totals.rows)
        opts.signal?.throwIfAborted()
      }
    }
    scanner.finish()
  } catch (err) {
    await rest.return?.()
    if (err instanceof ImportError && err.line === 0 && scanner.totals.rows > 0) {
      throw new ImportError(label, 0, `${err.reason} (after line ${scanner.totals.rows})`, { cause: err })
    }
    throw err
  } finally {
    slices.close()
  }
  return { plan, scanner, slices }
}

async function importOne(
  store: Store,
  journal: ImportJournal,
  file: string,
  opts: ImportOptions,
  report: (phase: ImportPhase, fraction: number, rows: number) => void
): Promise<FileResult> {
  const label = file
  report('checksum', 0, 0)
  const { sha256, checked } = await verifyChecksum(file, label)
  fs.mkdirSync(opts.tmpDir, { recursive: true })
  const dir = fs.mkdtempSync(path.join(opts.tmpDir, 'import-'))
  try {
    const { plan, scanner, slices } = await scanFile(file, label, dir, opts, report)
    const totals = scanner.totals
    const params = plan.params(totals)
    opts.signal?.throwIfAborted()
    report('writing', 0, totals.rows)
    await writeSlices(store, journal, plan.layout, slices.slices, params, sha256, (done, total) =>
      report('writing', done / total, totals.rows)
    )
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
      tables: plan.layout.targets.map((t) => t.table),
      checksum: checked,
      notes
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
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
  for (let index = 0; index < files.length; index++) {
    opts.signal?.throwIfAborted()
    const file = files[index]!
    const report = (phase: ImportPhase, fraction: number, rows: number): void =>
      opts.onProgress?.({ file, index, files: files.length, phase, fraction, rows })
    results.push(await importOne(store, journal, file, opts, report))
  }
  return results
}
