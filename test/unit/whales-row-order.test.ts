import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { WhaleTransferRecord } from '../../engine/records/types.js'
import { compareRows, orderedRows } from '../../engine/whales/row-order.js'

const T0 = Date.UTC(2025, 0, 1)

const rowArb = (ts: fc.Arbitrary<number>): fc.Arbitrary<WhaleTransferRecord> =>
  fc.record({
    kind: fc.constant('whale_transfer' as const),
    ts,
    chain: fc.constantFrom('ethereum', 'bsc'),
    tx_hash: fc.constantFrom('0xa', '0xab', '0xb'),
    log_index: fc.integer({ min: 0, max: 11 }),
    block_number: fc.integer({ min: 1, max: 3 }),
    address: fc.constantFrom('0xA', '0xB'),
    counterparty: fc.constantFrom('0xC', '0xD'),
    event_type: fc.constantFrom('transfer_in' as const, 'transfer_out' as const, 'swap' as const),
    token: fc.constantFrom('USDC', 'WETH'),
    amount: fc.integer({ min: 1, max: 3 }),
    usd_value: fc.integer({ min: 1, max: 3 })
  })

function expectSameAsPlainSort(rows: readonly WhaleTransferRecord[]): void {
  const expected = [...rows].sort(compareRows)
  expect(orderedRows(rows)).toEqual(expected)
  expect(orderedRows([...rows].reverse())).toEqual(expected)
}

describe('orderedRows', () => {
  it('equals a plain compareRows sort on tie-heavy integer ts (packed-key path)', () => {
    const ts = fc.integer({ min: T0, max: T0 + 5 })
    fc.assert(fc.property(fc.array(rowArb(ts), { maxLength: 80 }), expectSameAsPlainSort), { numRuns: 300 })
  })

  it('equals a plain sort for fractional ts and spans too wide to pack (fallback path)', () => {
    const ts = fc.oneof(fc.constantFrom(0.5, 1.25, 1.25), fc.constantFrom(-8e15, 0, 8e15))
    fc.assert(fc.property(fc.array(rowArb(ts), { maxLength: 40 }), expectSameAsPlainSort), { numRuns: 200 })
  })

  it('does not modify its input', () => {
    const rows = fc.sample(fc.array(rowArb(fc.integer({ min: T0, max: T0 + 9 })), { minLength: 20 }), {
      numRuns: 1,
      seed: 42
    })[0]!
    const copy = [...rows]
    orderedRows(rows)
    expect(rows).toEqual(copy)
  })
})
