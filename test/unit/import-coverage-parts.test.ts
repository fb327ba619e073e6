/**
 * The import statement's coverage filter names only the checks that found keys (coverage.ts `filter` with
 * `parts`): a check left out must be one whose keys file part is empty, and with no parts the filter keeps
 * every row. The integration tests (test/integration/import-binance.test.ts) prove the rows written are unchanged.
 */
import { describe, expect, it } from 'vitest'
import { coveragePlan } from '../../ingest/import/coverage.js'
import { sqlString } from '../../engine/store/sql-text.js'

const trades = coveragePlan({ kind: 'candles', level: '1m' }, 'trades', sqlString)
const notIn = (filter: string) => filter.split('\n  AND ').filter((f) => f.includes('NOT IN'))

describe('import coverage filter by parts', () => {
  it('has one NOT IN per check without parts: 1m and the 7 levels above it', () => {
    expect(notIn(trades.filter('/k.native'))).toHaveLength(8)
  })

  it('names only the parts given, each with its own part number', () => {
    const f = notIn(trades.filter('/k.native', new Set([0, 4])))
    expect(f).toHaveLength(2)
    expect(f[0]).toContain('WHERE part = 0)')
    expect(f[0]).toContain('toStartOfMinute(ts)')
    expect(f[1]).toContain('WHERE part = 4)')
    expect(f[1]).toContain('INTERVAL 4 HOUR') // part 4: the 4h check (1m, 5m, 15m, 1h, 4h, ...)
  })

  it('keeps every row when no check found a key', () => {
    expect(trades.filter('/k.native', new Set())).toBe('1')
  })

  it('reads the distinct part numbers of the keys file', () => {
    expect(trades.partsIn('/k.native')).toMatch(
      /^SELECT DISTINCT part FROM file\('\/k\.native', 'Native', 'part UInt8, /
    )
  })
})
