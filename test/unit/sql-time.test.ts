/** engine/store/sql-time.ts: the field-built text equals toISOString's, for any time the engine can hold. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sqlTime } from '../../engine/store/sql-time.js'

const iso = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')

describe('sqlTime', () => {
  it('equals the ISO text without T and Z for any epoch ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_000_000_000_000, max: 8_000_000_000_000 }), (ms) => {
        expect(sqlTime(ms)).toBe(iso(ms))
      }),
      { numRuns: 20_000 }
    )
  })

  it('pads every field', () => {
    expect(sqlTime(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02 03:04:05.006')
    expect(sqlTime(Date.UTC(2026, 10, 23, 22, 41, 5, 90))).toBe('2026-11-23 22:41:05.090')
  })
})
