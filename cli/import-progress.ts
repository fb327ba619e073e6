/**
 * @module
 * The progress display of `tidewatch import` on stderr: on a terminal one line redrawn in place (a bar of
 * the current phase, file n of m, rows checked); elsewhere nothing until each file's summary line.
 */
import path from 'node:path'
import type { FileResult, ImportProgress } from '../ingest/import/run-import.js'
import type { Io } from './command.js'

const BAR_WIDTH = 24
const REDRAW_MS = 200

export function progressText(p: ImportProgress): string {
  const fill = Math.round(Math.min(1, Math.max(0, p.fraction)) * BAR_WIDTH)
  const bar = `[${'#'.repeat(fill)}${'.'.repeat(BAR_WIDTH - fill)}]`
  return `${bar} ${p.index + 1}/${p.files} ${path.basename(p.file)} ${p.phase} ${p.rows.toLocaleString('en-US')} rows`
}

export function summaryText(r: FileResult): string {
  const range = `${new Date(r.from).toISOString()} .. ${new Date(r.to).toISOString()}`
  const sum = r.checksum ? ', checksum verified' : ''
  const notes = (r.notes ?? []).map((n) => `  note: ${n}\n`).join('')
  return `imported ${r.file}: ${r.description}, ${r.rows.toLocaleString('en-US')} rows, ${range} -> ${r.tables.join(', ')}${sum}\n${notes}`
}

export class ProgressDisplay {
  private shown = 0
  private drawn = false

  constructor(
    private readonly io: Io,
    private readonly tty: boolean
  ) {}

  update(p: ImportProgress): void {
    if (!this.tty || Date.now() - this.shown < REDRAW_MS) return
    this.shown = Date.now()
    this.io.err(`\r${progressText(p)}\u001b[K`)
    this.drawn = true
  }

  /** Clears the progress line (before a summary or an error is printed). */
  clear(): void {
    if (this.drawn) this.io.err('\r\u001b[K')
    this.drawn = false
  }
}
