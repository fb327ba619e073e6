/**
 * Reads docs/records.md for the tests that keep it true: per record kind (a `## <kind>` section) its field
 * table and its example NDJSON lines (```ndjson blocks), plus the lines of the "Loading records" shell
 * example (a heredoc of trades).
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const RECORDS_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/records.md')

export interface DocField {
  readonly name: string
  /** the type column without backticks, e.g. `number ≥ 0`, `"buy" | "sell"` */
  readonly type: string
  readonly required: boolean
}

export interface DocSection {
  readonly kind: string
  readonly fields: readonly DocField[]
  /** example lines exactly as written */
  readonly examples: readonly string[]
}

export interface RecordsDoc {
  readonly sections: ReadonlyMap<string, DocSection>
  /** the trade lines of the shell example under "Loading records" */
  readonly shellTrades: readonly string[]
}

/** cells of a markdown table row; `\|` inside a cell is a literal bar */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'))
}

const unquote = (cell: string): string => cell.replace(/`/g, '')

export function readRecordsDoc(text = fs.readFileSync(RECORDS_DOC, 'utf8')): RecordsDoc {
  const sections = new Map<string, DocSection>()
  const parts = text.split(/^## /m).slice(1)
  let shellTrades: string[] = []
  for (const part of parts) {
    const title = part.slice(0, part.indexOf('\n')).trim()
    if (title === 'Loading records') {
      const heredoc = /<<'EOF'\n([\s\S]*?)\nEOF\n/.exec(part)
      shellTrades = heredoc ? heredoc[1]!.split('\n').filter((l) => l.trim() !== '') : []
      continue
    }
    if (!/^[a-z_]+$/.test(title)) continue
    const lines = part.split('\n')
    const header = lines.findIndex((l) => /^\|\s*field\s*\|/.test(l))
    const fields: DocField[] = []
    if (header !== -1) {
      for (const row of lines.slice(header + 2)) {
        if (!row.startsWith('|')) break
        const [name, type, required] = cells(row)
        fields.push({ name: unquote(name ?? ''), type: unquote(type ?? ''), required: required === 'yes' })
      }
    }
    const examples: string[] = []
    for (const block of part.matchAll(/```ndjson\n([\s\S]*?)```/g)) {
      examples.push(...block[1]!.split('\n').filter((l) => l.trim() !== ''))
    }
    sections.set(title, { kind: title, fields, examples })
  }
  return { sections, shellTrades }
}
