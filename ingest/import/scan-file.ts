/**
 * @module
 * The byte scan of one import file: open it (zip, gzip or plain), read its first line, decide its layout
 * (plan-file.ts), check every line and split the file into slice files in `dir` (csv-scan.ts, slices.ts).
 * The engine reads and checks files itself (stage-file.ts); this scan runs when the engine refused a file,
 * to name its first bad line and the reason in the scan's words. It runs in a worker thread
 * (workers/import-scan-worker.ts), so the main thread (the server's event loop during
 * `POST /v1/admin/import`) stays free while the bytes are checked. Throws `ImportError`.
 */
import { CsvScanner, type ScanTotals } from './csv-scan.js'
import { openCsvSource, type CsvSource } from './file-source.js'
import { ImportError } from './import-error.js'
import { planFile } from './plan-file.js'
import { SliceWriter, type Slice } from './slices.js'

export interface ScanRequest {
  /** the file to read */
  readonly file: string
  /** how messages name it */
  readonly label: string
  /** where the slice files go */
  readonly dir: string
  readonly sliceRows?: number | undefined
  readonly market?: 'perp' | 'spot' | undefined
}

/** What the read phase found: plain data (it crosses threads); the plan is rebuilt from `firstLine`. */
export interface ScanResult {
  readonly firstLine: string
  readonly totals: ScanTotals
  readonly slices: Slice[]
}

/** The first chunk and its first line, then the rest of the stream. */
export async function firstLine(
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

/**
 * Reads and checks the whole file. `progress(fraction, rows)` is called about every 200 ms, and is where
 * a caller may throw to stop the scan.
 */
export async function scanFile(
  req: ScanRequest,
  progress: (fraction: number, rows: number) => void
): Promise<ScanResult> {
  const { file, label } = req
  const source = await openCsvSource(file, label)
  const { line, first, rest } = await firstLine(source)
  if (!first) throw new ImportError(label, 0, 'the file is empty')
  const plan = planFile(label, file, line, req.market)
  const slices = new SliceWriter(req.dir, req.sliceRows)
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
        progress(source.progress(), scanner.totals.rows)
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
  return { firstLine: line, totals: scanner.totals, slices: slices.slices }
}
