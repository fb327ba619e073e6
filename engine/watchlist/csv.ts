/**
 * @module
 * The small CSV dialect of watch-list files: UTF-8, one record per line, comma separated, a header line
 * first; a field may be double-quoted (a doubled quote inside stands for one quote); blank lines and
 * lines starting with `#` are skipped. No field spans lines. Line numbers are 1-based, as an editor shows.
 */

export interface CsvRow {
  /** 1-based line number in the file */
  readonly line: number
  readonly fields: readonly string[]
}

/** Splits one line into fields; throws an Error naming the column on an unterminated quote. */
export function splitCsvLine(text: string): string[] {
  const fields: string[] = []
  let i = 0
  for (;;) {
    let field = ''
    if (text[i] === '"') {
      i++
      for (;;) {
        const q = text.indexOf('"', i)
        if (q < 0) throw new Error(`unterminated quote at column ${i}`)
        field += text.slice(i, q)
        if (text[q + 1] === '"') {
          field += '"'
          i = q + 2
          continue
        }
        i = q + 1
        break
      }
      if (i < text.length && text[i] !== ',') throw new Error(`text after a closing quote at column ${i + 1}`)
    } else {
      const comma = text.indexOf(',', i)
      field = text.slice(i, comma < 0 ? text.length : comma)
      i = comma < 0 ? text.length : comma
    }
    fields.push(field.trim())
    if (i >= text.length) return fields
    i++ // the comma
  }
}

/** Non-blank, non-comment lines of a file with their line numbers (the header included). */
export function csvRows(content: string): CsvRow[] {
  const rows: CsvRow[] = []
  const lines = content.replace(/^\uFEFF/, '').split(/\r?\n/)
  for (let n = 0; n < lines.length; n++) {
    const text = lines[n]!
    if (text.trim() === '' || text.trimStart().startsWith('#')) continue
    try {
      rows.push({ line: n + 1, fields: splitCsvLine(text) })
    } catch (err) {
      throw Object.assign(new Error((err as Error).message), { line: n + 1 })
    }
  }
  return rows
}
