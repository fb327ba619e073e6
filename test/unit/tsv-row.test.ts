import { describe, expect, it } from 'vitest'
import { compileTsvRow, escapeTsv, tsvEncoder, tsvValue } from '../../engine/runtime/tsv-row.js'

describe('the shared TSV row encoder', () => {
  it('writes each cell kind as it says', () => {
    const enc = compileTsvRow<Record<string, unknown>>(
      [
        { name: 'a', cell: 'text' },
        { name: 'b', cell: 'raw' },
        { name: 'c', cell: 'text', nullable: true },
        { name: 'd', cell: 'raw', nullable: true },
        { name: 'e', cell: 'value' }
      ],
      '\n'
    )
    expect(enc({ a: 'x\ty\\z\r\n', b: 1.5, c: null, d: undefined, e: true })).toBe(
      'x\\ty\\\\z\\r\\n\t1.5\t\\N\t\\N\t1\n'
    )
    expect(enc({ a: 'é', b: true, c: 'q', d: 0, e: 'a\tb' })).toBe('é\ttrue\tq\t0\ta\\tb\n')
  })

  it('the generic encoder equals tsvValue per column, without a line end', () => {
    const row = { n: -0.1, s: 'a\nb', b: false, z: null, u: undefined }
    const cols = Object.keys(row)
    expect(tsvEncoder(cols)(row)).toBe(cols.map((c) => tsvValue(row[c as keyof typeof row])).join('\t'))
    expect(() => tsvEncoder([])).toThrow()
  })

  it('escapes backslash, tab, newline and carriage return only', () => {
    expect(escapeTsv('plain "quoted" \'x\'')).toBe('plain "quoted" \'x\'')
    expect(escapeTsv('\\\t\n\r')).toBe('\\\\\\t\\n\\r')
  })

  it('column names reach the generated code only as quoted property names', () => {
    const enc = compileTsvRow<Record<string, unknown>>([{ name: "x'] + process.exit(1) + r['", cell: 'raw' }], '')
    expect(enc({ "x'] + process.exit(1) + r['": 3 })).toBe('3')
  })
})
