/**
 * @module
 * The CLI's progress output on stderr (`import`, `export`): a bar of the share done, and one line that a
 * terminal redraws in place at most once per interval; elsewhere (a pipe, a log file) nothing is drawn
 * until a final line.
 */
import type { Io } from './command.js'

/** Characters between the brackets of a bar: leaves room for counts on an 80-column line. */
const BAR_WIDTH = 24

/** `[######..................]`: `share` (clamped to 0..1) of the bar filled. */
export function progressBar(share: number): string {
  const fill = Math.round(Math.min(1, Math.max(0, share)) * BAR_WIDTH)
  return `[${'#'.repeat(fill)}${'.'.repeat(BAR_WIDTH - fill)}]`
}

/** One progress line on stderr, redrawn in place on a terminal. */
export class ProgressLine {
  private shown = 0
  private drawn = false

  /** @param everyMs least time between two redraws */
  constructor(
    private readonly io: Io,
    private readonly tty: boolean,
    private readonly everyMs: number
  ) {}

  /** Redraws the line on a terminal unless the last redraw is under `everyMs` old; `text` is built only then. */
  update(text: () => string): void {
    if (Date.now() - this.shown < this.everyMs) return
    this.shown = Date.now()
    if (!this.tty) return
    this.io.err(`\r${text()}\u001b[K`)
    this.drawn = true
  }

  /** Clears the progress line (before a summary or an error is printed). */
  clear(): void {
    if (this.drawn) this.io.err('\r\u001b[K')
    this.drawn = false
  }

  /** The final line, kept: on a terminal it replaces the progress line, elsewhere it is the only one. */
  finish(text: string): void {
    this.io.err(this.tty ? `\r${text}\u001b[K\n` : `${text}\n`)
    this.drawn = false
  }
}
