/**
 * @module
 * Plain-text tables and terminal-safe cells for the CLI's human-readable output.
 */

/** Control characters (C0, DEL, C1) a stored label could use to move the cursor or recolour a terminal. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/** `text` with control characters replaced by U+FFFD, so a key's name cannot drive the terminal. */
export function safeCell(text: string): string {
  return text.replace(CONTROL, '\ufffd')
}

/** Columns left-aligned, separated by two spaces; widths in UTF-16 code units (fine for the ASCII we print). */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  return [line(headers), ...rows.map(line)].join('\n') + '\n'
}
