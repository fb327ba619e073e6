/**
 * @module
 * The progress text of `tidewatch import` on stderr: on a terminal one line redrawn in place (a bar of
 * the current phase, file n of m, rows checked; cli/progress.ts); elsewhere nothing until each file's
 * summary line.
 */
import path from 'node:path'
import type { FileResult, ImportProgress } from '../ingest/import/run-import.js'
import { progressBar } from './progress.js'

/** Least time between two redraws of the import's progress line (cli/progress.ts), ms. */
export const REDRAW_MS = 200

export function progressText(p: ImportProgress): string {
  return `${progressBar(p.fraction)} ${p.index + 1}/${p.files} ${path.basename(p.file)} ${p.phase} ${p.rows.toLocaleString('en-US')} rows`
}

export function summaryText(r: FileResult): string {
  const range = `${new Date(r.from).toISOString()} .. ${new Date(r.to).toISOString()}`
  const sum = r.checksum ? ', checksum verified' : ''
  const notes = (r.notes ?? []).map((n) => `  note: ${n}\n`).join('')
  return `imported ${r.file}: ${r.description}, ${r.rows.toLocaleString('en-US')} rows, ${range} -> ${r.tables.join(', ')}${sum}\n${notes}`
}
