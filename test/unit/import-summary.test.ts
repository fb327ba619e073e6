import { describe, expect, it } from 'vitest'
import { summaryText } from '../../cli/import-progress.js'

describe('import summary line', () => {
  it('prints the file result, then one indented line per note', () => {
    const base = {
      file: '/d/f.csv.gz',
      source: 'tardis' as const,
      description: 'tardis derivative_ticker',
      rows: 1234,
      from: Date.UTC(2024, 0, 1),
      to: Date.UTC(2024, 0, 1, 23),
      tables: ['funding', 'open_interest'],
      checksum: false
    }
    expect(summaryText({ ...base, notes: [] })).toBe(
      'imported /d/f.csv.gz: tardis derivative_ticker, 1,234 rows, 2024-01-01T00:00:00.000Z .. 2024-01-01T23:00:00.000Z -> funding, open_interest\n'
    )
    expect(summaryText({ ...base, notes: ['funding interval not shown'] })).toMatch(
      /open_interest\n {2}note: funding interval not shown\n$/
    )
  })
})
