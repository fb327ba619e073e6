import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { WhaleTransferRecord } from '../../engine/records/types.js'
import { collapseEvents } from '../../engine/whales/collapse.js'
import { MIN, T0, whaleRow } from '../helpers/whale-row.js'

const row = whaleRow

/** a round trip of one wallet in USDC: legs [type, minutes after T0, usd] each in its own tx */
function legs(spec: readonly [WhaleTransferRecord['event_type'], number, number][]): WhaleTransferRecord[] {
  return spec.map(([event_type, min, usd], i) =>
    row({ event_type, ts: T0 + min * MIN, usd_value: usd, amount: usd, tx_hash: `0xw${i}` })
  )
}

describe('collapseEvents: multi-hop routes', () => {
  const route = [
    row({ log_index: 9, event_type: 'transfer_in', usd_value: 990_000, amount: 990_000, counterparty: '0xR2' }),
    row({ log_index: 2, usd_value: 1_000_000, amount: 1_000_000, counterparty: '0xR1', block_number: 101 }),
    row({ log_index: 5, usd_value: 1_010_000, amount: 1_010_000, counterparty: '0xR3' })
  ]

  it('folds the legs of one tx and wallet into one event sized by the largest leg, never summed', () => {
    const [e, ...rest] = collapseEvents(route)
    expect(rest).toEqual([])
    expect(e).toMatchObject({
      id: 'ethereum:0x1:2:0xA',
      ts: T0,
      last_ts: T0,
      event_type: 'transfer_out',
      counterparty: '0xR1',
      token: 'USDC',
      block_number: 101,
      amount: 1_010_000,
      usd_value: 1_010_000,
      significance: 'medium',
      repeat_count: 3,
      collapsed: 'multi_hop'
    })
  })

  it('keeps other wallets, other chains and other txs apart', () => {
    const others = [
      row({ log_index: 3, address: '0xB' }),
      row({ log_index: 2, chain: 'bsc' }),
      row({ log_index: 2, tx_hash: '0x2' })
    ]
    const events = collapseEvents([...route, ...others])
    expect(events.map((e) => [e.id, e.address, e.repeat_count])).toEqual([
      ['bsc:0x1:2:0xA', '0xA', 1],
      ['ethereum:0x1:2:0xA', '0xA', 3],
      ['ethereum:0x1:3:0xB', '0xB', 1],
      ['ethereum:0x2:2:0xA', '0xA', 1]
    ])
  })

  it('takes amount in the first leg token when the largest leg is another token', () => {
    const swapRoute = [
      row({ log_index: 1, token: 'USDC', amount: 999_000, usd_value: 999_000 }),
      row({ log_index: 4, token: 'WETH', amount: 300, usd_value: 1_005_000, event_type: 'transfer_in' })
    ]
    const [e] = collapseEvents(swapRoute)
    expect(e).toMatchObject({ token: 'USDC', amount: 999_000, usd_value: 1_005_000, repeat_count: 2 })
  })

  it('counts a row seen twice (same chain, tx, log index, wallet) once', () => {
    const events = collapseEvents([row({}), row({}), row({ address: '0xB' })])
    expect(events.map((e) => e.repeat_count)).toEqual([1, 1])
  })
})

describe('collapseEvents: wash loops', () => {
  it('folds out/in/out within ±5% and 10 minutes, both edges inclusive, sized by the first leg', () => {
    const rows = legs([
      ['transfer_out', 0, 1_000_000],
      ['transfer_in', 10, 1_050_000],
      ['transfer_out', 20, 950_000]
    ])
    const events = collapseEvents(rows)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      id: 'ethereum:0xw0:0:0xA',
      ts: T0,
      last_ts: T0 + 20 * MIN,
      usd_value: 1_000_000,
      amount: 1_000_000,
      event_type: 'transfer_out',
      repeat_count: 3,
      collapsed: 'wash_loop'
    })
  })

  it('may start with transfer_in', () => {
    const events = collapseEvents(
      legs([
        ['transfer_in', 0, 1_000_000],
        ['transfer_out', 3, 1_020_000]
      ])
    )
    expect(events.map((e) => [e.event_type, e.repeat_count])).toEqual([['transfer_in', 2]])
  })

  it('does not fold a leg just outside ±5% of the first leg', () => {
    for (const usd of [1_050_001, 949_999]) {
      const events = collapseEvents(
        legs([
          ['transfer_out', 0, 1_000_000],
          ['transfer_in', 1, usd]
        ])
      )
      expect(events.map((e) => e.repeat_count)).toEqual([1, 1])
    }
  })

  it('compares every leg with the first leg, not with the previous one', () => {
    const rows = legs([
      ['transfer_out', 0, 1_000_000],
      ['transfer_in', 1, 1_040_000],
      ['transfer_out', 2, 1_080_000]
    ])
    expect(collapseEvents(rows).map((e) => e.repeat_count)).toEqual([2, 1])
  })

  it('does not fold a leg more than 10 minutes after the previous one, and honours washWindowMs', () => {
    const rows = [row({ tx_hash: '0xa' }), row({ tx_hash: '0xb', event_type: 'transfer_in', ts: T0 + 10 * MIN + 1 })]
    expect(collapseEvents(rows).map((e) => e.repeat_count)).toEqual([1, 1])
    expect(collapseEvents(rows, { washWindowMs: 11 * MIN }).map((e) => e.repeat_count)).toEqual([2])
  })

  it('measures the window from the previous leg, so a loop may outlast it', () => {
    const rows = legs([
      ['transfer_out', 0, 1_000_000],
      ['transfer_in', 9, 1_000_000],
      ['transfer_out', 18, 1_000_000],
      ['transfer_in', 27, 1_000_000]
    ])
    expect(collapseEvents(rows).map((e) => [e.repeat_count, e.last_ts - e.ts])).toEqual([[4, 27 * MIN]])
  })

  it('never folds swaps', () => {
    const swaps = legs([
      ['swap', 0, 1_000_000],
      ['swap', 1, 1_000_000]
    ])
    expect(collapseEvents(swaps).map((e) => e.repeat_count)).toEqual([1, 1])
    const mixed = legs([
      ['transfer_out', 0, 1_000_000],
      ['swap', 1, 1_000_000],
      ['transfer_in', 2, 1_000_000]
    ])
    expect(collapseEvents(mixed).map((e) => [e.event_type, e.repeat_count])).toEqual([
      ['transfer_out', 2],
      ['swap', 1]
    ])
  })

  it('does not fold legs that do not alternate', () => {
    const rows = legs([
      ['transfer_out', 0, 1_000_000],
      ['transfer_out', 1, 1_000_000],
      ['transfer_in', 2, 1_000_000]
    ])
    expect(collapseEvents(rows).map((e) => [e.id, e.repeat_count])).toEqual([
      ['ethereum:0xw0:0:0xA', 1],
      ['ethereum:0xw1:0:0xA', 2]
    ])
  })

  it('keeps other tokens and other wallets apart', () => {
    const rows = [
      row({ tx_hash: '0xa' }),
      row({ tx_hash: '0xb', event_type: 'transfer_in', token: 'USDT' }),
      row({ tx_hash: '0xc', event_type: 'transfer_in', address: '0xB' })
    ]
    expect(collapseEvents(rows).map((e) => e.repeat_count)).toEqual([1, 1, 1])
  })

  it('counts the legs of routes inside a loop, sizing the loop by its first route', () => {
    const rows = [
      row({ tx_hash: '0xa', log_index: 0, usd_value: 990_000 }),
      row({ tx_hash: '0xa', log_index: 1, usd_value: 1_000_000 }),
      row({ tx_hash: '0xb', event_type: 'transfer_in', ts: T0 + MIN, usd_value: 1_049_000 })
    ]
    expect(collapseEvents(rows)).toMatchObject([
      { id: 'ethereum:0xa:0:0xA', usd_value: 1_000_000, repeat_count: 3, collapsed: 'wash_loop' }
    ])
  })

  it('never folds a route that holds a swap leg', () => {
    const rows = [
      row({ tx_hash: '0xa', log_index: 0 }),
      row({ tx_hash: '0xa', log_index: 1, event_type: 'swap' }),
      row({ tx_hash: '0xb', event_type: 'transfer_in', ts: T0 + MIN })
    ]
    expect(collapseEvents(rows).map((e) => [e.collapsed, e.repeat_count])).toEqual([
      ['multi_hop', 2],
      [null, 1]
    ])
  })
})

describe('collapseEvents: significance', () => {
  it('drops events below low and grades the rest by the event usd_value', () => {
    const rows = [
      row({ tx_hash: '0xa', usd_value: 99_999, event_type: 'swap' }),
      row({ tx_hash: '0xb', usd_value: 100_000, event_type: 'swap' }),
      row({ tx_hash: '0xc', usd_value: 10_000_000, event_type: 'swap' })
    ]
    expect(collapseEvents(rows).map((e) => [e.tx_hash, e.significance])).toEqual([
      ['0xb', 'low'],
      ['0xc', 'critical']
    ])
    const custom = { low: 1, medium: 2, high: 3, critical: 200_000 }
    expect(collapseEvents(rows, { thresholds: custom }).map((e) => e.significance)).toEqual([
      'high',
      'high',
      'critical'
    ])
  })

  it('grades a route by its largest leg even when its first leg is small', () => {
    const rows = [row({ log_index: 0, usd_value: 20_000 }), row({ log_index: 1, usd_value: 600_000 })]
    expect(collapseEvents(rows)).toMatchObject([{ id: 'ethereum:0x1:0:0xA', significance: 'medium' }])
  })

  it('rejects bad options', () => {
    expect(() => collapseEvents([], { washWindowMs: -1 })).toThrow(RangeError)
    expect(() => collapseEvents([], { washTolerance: Number.NaN })).toThrow(RangeError)
  })
})

/** rows over few txs, wallets and sizes so routes, loops, ties and duplicate keys are common */
const rowsArb = fc.array(
  fc.record({
    tx: fc.integer({ min: 0, max: 30 }),
    log: fc.integer({ min: 0, max: 4 }),
    address: fc.constantFrom('0xA', '0xB'),
    event_type: fc.constantFrom('transfer_in', 'transfer_out', 'swap'),
    token: fc.constantFrom('USDC', 'WETH'),
    usd: fc.constantFrom(50_000, 100_000, 500_000, 510_000, 530_000, 2_500_000)
  }),
  { maxLength: 60 }
)

function toRows(specs: ReturnType<typeof rowsArb.generate>['value']): WhaleTransferRecord[] {
  return specs.map((s) =>
    row({
      chain: s.tx % 3 === 0 ? 'bsc' : 'ethereum',
      tx_hash: `0x${s.tx}`,
      ts: T0 + ((s.tx * 7) % 20) * 4 * MIN,
      log_index: s.log,
      address: s.address,
      event_type: s.event_type as WhaleTransferRecord['event_type'],
      token: s.token,
      usd_value: s.usd,
      amount: s.usd
    })
  )
}

describe('collapseEvents: determinism', () => {
  it('gives the same events for any order of the same rows', () => {
    fc.assert(
      fc.property(
        rowsArb.chain((specs) => {
          const rows = toRows(specs)
          return fc.tuple(fc.constant(rows), fc.shuffledSubarray(rows, { minLength: rows.length }))
        }),
        ([rows, shuffled]) => {
          expect(collapseEvents(shuffled)).toEqual(collapseEvents(rows))
        }
      ),
      { numRuns: 300 }
    )
  })

  it('accounts for every unique row exactly once', () => {
    fc.assert(
      fc.property(rowsArb, (specs) => {
        const rows = toRows(specs)
        const unique = new Set(rows.map((r) => `${r.chain}|${r.tx_hash}|${r.log_index}|${r.address}`)).size
        const all = collapseEvents(rows, { thresholds: { low: 0, medium: 0, high: 0, critical: 0 } })
        expect(all.reduce((n, e) => n + e.repeat_count, 0)).toBe(unique)
      }),
      { numRuns: 300 }
    )
  })
})
