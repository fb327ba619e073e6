/**
 * @module
 * Imports files one after the other into a store: for each, verify the `.CHECKSUM` (when present) while a
 * worker thread checks every line and splits the file into slices in a temporary directory (scan-file.ts,
 * import-scan.ts: the main thread stays free), then write the slices (writer.ts).
 * The first file that fails stops the run with its `ImportError`; files before it stay imported, nothing
 * of the failed file is written. Used by `tidewatch import` on a data directory it opened itself and by
 * the server's `POST /v1/admin/import`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { silentLogger, type Logger } from '../../engine/log.js'
import type { Store } from '../../engine/store/store.js'
import { verifyChecksum } from './checksum.js'
import { scanInWorker } from './import-scan.js'
import { ImportJournal } from './import-journal.js'
import { planFile } from './plan-file.js'
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

async function importOne(
  store: Store,
  journal: ImportJournal,
  file: string,
  opts: ImportOptions,
  report: (phase: ImportPhase, fraction: number, rows: number) => void
): Promise<FileResult> {
  const label = file
  report('checksum', 0, 0)
  fs.mkdirSync(opts.tmpDir, { recursive: true })
  const dir = fs.mkdtempSync(path.join(opts.tmpDir, 'import-'))
  const stopScan = new AbortController()
  try {
    // the read phase (every line checked, slices cut) runs in a worker beside the checksum; the checksum's
    // verdict is taken first, as when the two ran one after the other
    const signal = opts.signal ? AbortSignal.any([opts.signal, stopScan.signal]) : stopScan.signal
    const scan = scanInWorker(
      { file, label, dir, sliceRows: opts.sliceRows, market: opts.market },
      (fraction, rows) => report('reading', fraction, rows),
      signal
    )
    scan.catch(() => undefined) // awaited below, or stopped when the checksum fails
    let sum: Awaited<ReturnType<typeof verifyChecksum>>
    try {
      sum = await verifyChecksum(file, label)
    } catch (err) {
      stopScan.abort()
      await scan.catch(() => undefined)
      throw err
    }
    const { sha256, checked } = sum
    const { firstLine, totals, slices } = await scan
    const plan = planFile(label, file, firstLine, opts.market)
    const params = plan.params(totals)
    opts.signal?.throwIfAborted()
    report('writing', 0, totals.rows)
    await writeSlices(store, journal, plan.layout, slices, params, sha256, (done, total) =>
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
