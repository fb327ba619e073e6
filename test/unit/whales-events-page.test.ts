import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../engine/errors.js'
import { CHAINS, type Chain, type WhaleTransferRecord } from '../../engine/records/types.js'
import { collapseEvents, type WhaleEvent } from '../../engine/whales/collapse.js'
import { pageEvents, type EventsFilter } from '../../engine/whales/events-page.js'
import { SIGNIFICANCE_LEVELS } from '../../engine/whales/significance.js'
import { MIN, T0, whaleRow } from '../helpers/whale-row.js'

const row = (p: Partial<WhaleTransferRecord>): WhaleTransferRecord =>
  whaleRow({ amount: 600_000, usd_value: 600_000, ...p })

const ALL: EventsFilter = { chains: [], sinceMs: T0 }

describe('pageEvents: total and distinct', () => {
  const rows = [
    // a 3-leg route: 3 rows, 1 event
    row({ tx_hash: '0xr', log_index: 0 }),
    row({ tx_hash: '0xr', log_index: 1 }),
    row({ tx_hash: '0xr', log_index: 2 }),
    // a wash loop of 2 legs (other wallet): 2 rows, 1 event
    row({ tx_hash: '0xw1', address: '0xB', ts: T0 + MIN }),
    row({ tx_hash: '0xw2', address: '0xB', ts: T0 + 2 * MIN, event_type: 'transfer_in' }),
    // single rows: medium on bsc, low (200k) swap, and one before the window
    row({ tx_hash: '0xs', chain: 'bsc', ts: T0 + 3 * MIN, event_type: 'transfer_in' }),
    row({ tx_hash: '0xl', ts: T0 + 4 * MIN, usd_value: 200_000, event_type: 'swap' }),
    row({ tx_hash: '0xold', ts: T0 - 1 })
  ]
  const events = collapseEvents(rows)
  const page = { limit: 50, offset: 0 }

  it('counts raw rows in total and collapsed events in distinct', () => {
    const r = pageEvents(events, rows, ALL, page)
    expect([r.total, r.distinct]).toEqual([6, 3])
    expect(r.events.map((e) => e.tx_hash)).toEqual(['0xs', '0xw1', '0xr'])
  })

  it('applies the significance minimum to rows by their own size and to events by theirs', () => {
    const r = pageEvents(events, rows, { ...ALL, significance: 'low' }, page)
    expect([r.total, r.distinct]).toEqual([7, 4])
    const high = pageEvents(events, rows, { ...ALL, significance: 'high' }, page)
    expect([high.total, high.distinct, high.events.length]).toEqual([0, 0, 0])
  })

  it('filters chains and the event type (an event has the type of its first row)', () => {
    const bsc = pageEvents(events, rows, { ...ALL, chains: ['bsc'] }, page)
    expect([bsc.total, bsc.distinct]).toEqual([1, 1])
    const ins = pageEvents(events, rows, { ...ALL, eventType: 'transfer_in' }, page)
    expect([ins.total, ins.distinct]).toEqual([2, 1])
    expect(ins.events.map((e) => e.tx_hash)).toEqual(['0xs'])
  })

  it('counts a row seen twice (same chain, tx, log index, wallet) once in total and in the event', () => {
    const twice = [...rows, rows[5]!, { ...rows[5]! }]
    const r = pageEvents(collapseEvents(twice), twice, ALL, page)
    expect([r.total, r.distinct]).toEqual([6, 3])
    expect(r.events[0]).toMatchObject({ tx_hash: '0xs', repeat_count: 1 })
  })

  it('never includes chains outside the 8 even with an empty chain filter', () => {
    const tron = [row({ chain: 'tron', tx_hash: '0xt' })]
    const r = pageEvents(collapseEvents(tron), tron, ALL, page)
    expect([r.total, r.distinct]).toEqual([0, 0])
  })

  it('orders newest first, ties by id descending; both sides of one transfer are two events with their own ids', () => {
    const tied = [
      row({ tx_hash: '0xa', log_index: 1 }),
      row({ tx_hash: '0xa', log_index: 1, address: '0xB', event_type: 'transfer_in' }),
      row({ tx_hash: '0xb', log_index: 0, event_type: 'swap' }),
      row({ tx_hash: '0xc', ts: T0 + 1, event_type: 'swap' })
    ]
    const r = pageEvents(collapseEvents(tied), tied, ALL, page)
    expect(r.events.map((e) => `${e.id}/${e.address}`)).toEqual([
      'ethereum:0xc:0:0xA/0xA',
      'ethereum:0xb:0:0xA/0xA',
      'ethereum:0xa:1:0xB/0xB',
      'ethereum:0xa:1:0xA/0xA'
    ])
  })

  it('rejects a limit or offset outside the spec ranges', () => {
    for (const bad of [
      { limit: 0, offset: 0 },
      { limit: 201, offset: 0 },
      { limit: 1.5, offset: 0 },
      { limit: 1, offset: -1 },
      { limit: 1, offset: 10_001 }
    ]) {
      expect(() => pageEvents(events, rows, ALL, bad)).toThrow(ApiError)
    }
    expect(pageEvents(events, rows, ALL, { limit: 200, offset: 10_000 }).events).toEqual([])
  })
})

const CHAIN_POOL: readonly Chain[] = ['ethereum', 'bsc', 'solana']

const specArb = fc.record({
  tx: fc.integer({ min: 0, max: 40 }),
  log: fc.integer({ min: 0, max: 3 }),
  address: fc.constantFrom('0xA', '0xB', '0xC'),
  event_type: fc.constantFrom<WhaleTransferRecord['event_type']>('transfer_in', 'transfer_out', 'swap'),
  token: fc.constantFrom('USDC', 'WETH'),
  usd: fc.constantFrom(50_000, 100_000, 500_000, 510_000, 2_500_000, 10_000_000)
})
type Spec = typeof specArb extends fc.Arbitrary<infer T> ? T : never

/** legs of one tx share chain and ts (one block); ts values collide often so ties are exercised */
function toRow(s: Spec, baseTs: number): WhaleTransferRecord {
  return row({
    chain: CHAIN_POOL[s.tx % CHAIN_POOL.length]!,
    tx_hash: `0x${baseTs}-${s.tx}`,
    ts: baseTs + ((s.tx * 7) % 15) * 3 * MIN,
    log_index: s.log,
    address: s.address,
    event_type: s.event_type,
    token: s.token,
    usd_value: s.usd,
    amount: s.usd
  })
}

const filterArb = fc.record({
  chains: fc.subarray([...CHAINS]),
  sinceMs: fc.constantFrom(T0 - 1, T0, T0 + 20 * MIN),
  significance: fc.constantFrom(...SIGNIFICANCE_LEVELS),
  eventType: fc.constantFrom(undefined, 'transfer_in' as const, 'transfer_out' as const, 'swap' as const)
})

function walk(events: readonly WhaleEvent[], rows: readonly WhaleTransferRecord[], f: EventsFilter, limit: number) {
  const seen: WhaleEvent[] = []
  for (let offset = 0; ; offset += limit) {
    const p = pageEvents(events, rows, f, { limit, offset })
    seen.push(...p.events)
    if (p.events.length < limit) return { seen, distinct: p.distinct }
  }
}

const key = (e: WhaleEvent): string => `${e.id}/${e.address}`

describe('pageEvents: paging invariants', () => {
  it('visits every distinct event exactly once when offset steps by limit', () => {
    fc.assert(
      fc.property(
        fc.array(specArb, { maxLength: 80 }),
        filterArb,
        fc.integer({ min: 1, max: 7 }),
        (specs, f, limit) => {
          const rows = specs.map((s) => toRow(s, T0))
          const events = collapseEvents(rows)
          const { seen, distinct } = walk(events, rows, f, limit)
          expect(seen).toHaveLength(distinct)
          expect(new Set(seen.map(key)).size).toBe(distinct)
          const all = pageEvents(events, rows, f, { limit: 200, offset: 0 }).events
          expect(seen).toEqual(all)
        }
      ),
      { numRuns: 300 }
    )
  })

  it('keeps events already seen, in the same order, after newer rows arrive', () => {
    fc.assert(
      fc.property(
        fc.array(specArb, { maxLength: 60 }),
        fc.array(specArb, { minLength: 1, maxLength: 30 }),
        filterArb,
        fc.integer({ min: 1, max: 7 }),
        (oldSpecs, newSpecs, f, limit) => {
          const before = oldSpecs.map((s) => toRow(s, T0))
          // newer rows start within the wash window of the newest old ones, so they can extend old loops
          const after = [...before, ...newSpecs.map((s) => toRow(s, T0 + 15 * 3 * MIN))]
          const seenBefore = walk(collapseEvents(before), before, f, limit).seen
          const seenAfter = walk(collapseEvents(after), after, f, limit).seen
          const old = new Set(seenBefore.map(key))
          const kept = seenAfter.filter((e) => old.has(key(e)))
          expect(kept.map((e) => [key(e), e.ts, e.usd_value, e.significance])).toEqual(
            seenBefore.map((e) => [key(e), e.ts, e.usd_value, e.significance])
          )
        }
      ),
      { numRuns: 300 }
    )
  })
})
