/**
 * The chain events' details for the read API (engine/whales/chain-details.ts): remembered per transaction
 * without a key string per event, found by the event's identity (chain, tx_hash, log_index, address),
 * replaced when an event is confirmed again, bounded to MAX_DETAILS entries with the oldest transactions
 * dropped first and counted; collapse.ts puts them on the served events.
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  chainDetailCount,
  chainDetailOf,
  chainEventId,
  clearChainDetails,
  droppedDetails,
  MAX_DETAILS,
  recordChainDetails
} from '../../engine/whales/chain-details.js'
import { collapseEvents } from '../../engine/whales/collapse.js'
import type { ChainWhaleEvent } from '../../engine/whales/tx-events.js'

const ev = (tx: number, logIndex: number, address: string, extra: Partial<ChainWhaleEvent> = {}): ChainWhaleEvent => ({
  chain: 'ethereum',
  tx_hash: `0x${tx.toString(16).padStart(64, '0')}`,
  log_index: logIndex,
  block_number: 1,
  block_hash: '0x' + 'b'.repeat(64),
  ts: Date.UTC(2026, 0, 1) + tx,
  address,
  counterparty: '0x' + 'c'.repeat(40),
  event_type: 'swap',
  token: 'BBB',
  amount: 5,
  token_in: 'ETH',
  amount_in: 1,
  usd_value: 3e6,
  price_source: 'candles_1m:binance',
  hops: 2,
  pools: ['0xp1', '0xp2'],
  repeat_count: 4,
  circular: false,
  internal: false,
  label: null,
  ...extra
})
const A = '0x' + 'a'.repeat(40)
const B = '0x' + 'd'.repeat(40)
/** every event remembered, whatever its time (the window's own test sets `sinceMs`) */
const record = (events: readonly ChainWhaleEvent[]): void => recordChainDetails(events, 0)
const find = (e: ChainWhaleEvent) => chainDetailOf(e.chain, e.tx_hash, e.log_index, e.address)

// the details are process-wide: other files of the same process (the unit project shares processes) record some
beforeEach(() => clearChainDetails())
afterEach(() => clearChainDetails())

describe('chain event details', () => {
  it('finds each event of a transaction by its identity only, and replaces one confirmed again', () => {
    const a = ev(1, 3, A)
    const b = ev(1, 5, B, { hops: 0, pools: [], event_type: 'transfer_in' })
    const c = ev(1, 3, A, { chain: 'bsc', label: 'other chain' })
    record([a, b, c])
    expect(chainDetailCount()).toBe(3)
    expect(find(a)).toMatchObject({ hops: 2, pools: ['0xp1', '0xp2'], repeat_count: 4, token_in: 'ETH' })
    expect(find(b)).toMatchObject({ hops: 0, pools: [] })
    expect(find(c)).toMatchObject({ label: 'other chain' })
    expect(chainDetailOf('ethereum', a.tx_hash, 4, A)).toBeUndefined()
    expect(chainDetailOf('ethereum', a.tx_hash, 3, B)).toBeUndefined()
    record([{ ...a, label: 'again' }])
    expect(chainDetailCount()).toBe(3)
    expect(find(a)).toMatchObject({ label: 'again' })
  })

  it('hands out the eight detail fields as own properties, also for a plain transfer', () => {
    // a plain transfer's compact entry reads its constant fields from the prototype: a spread or
    // JSON.stringify of the entry itself would drop them
    const plain = ev(9, 1, A, {
      event_type: 'transfer_in',
      token: 'USDC',
      token_in: null,
      amount_in: null,
      hops: 0,
      pools: [],
      repeat_count: 1,
      price_source: 'stablecoin'
    })
    const swap = ev(9, 4, B)
    record([plain, swap])
    const want = {
      repeat_count: 1,
      hops: 0,
      pools: [],
      token_in: null,
      amount_in: null,
      price_source: 'stablecoin',
      label: null,
      internal: false
    }
    expect({ ...find(plain) }).toStrictEqual(want)
    expect(JSON.parse(JSON.stringify(find(plain)))).toStrictEqual(want)
    expect(Object.keys(find(swap)!).sort()).toEqual(Object.keys(want).sort())
  })

  it('puts the details on the served event (collapse.ts)', () => {
    const a = ev(7, 2, A)
    record([a])
    const [served] = collapseEvents([
      {
        kind: 'whale_transfer',
        ts: a.ts,
        chain: a.chain,
        tx_hash: a.tx_hash,
        log_index: a.log_index,
        block_number: a.block_number,
        address: a.address,
        counterparty: a.counterparty,
        event_type: a.event_type,
        token: a.token,
        amount: a.amount,
        usd_value: a.usd_value!
      }
    ])
    expect(served).toMatchObject({ repeat_count: 4, hops: 2, pools: ['0xp1', '0xp2'], token_in: 'ETH', amount_in: 1 })
  })

  it('keeps at most MAX_DETAILS entries, dropping the oldest transactions first', () => {
    const first = [ev(0, 1, A), ev(0, 2, B)]
    record(first)
    const rest: ChainWhaleEvent[] = []
    for (let i = 1; i < MAX_DETAILS; i++) rest.push(ev(i, 1, A))
    record(rest)
    // MAX_DETAILS + 1 entries: the oldest transaction goes, both of its entries counted
    expect(chainDetailCount()).toBe(MAX_DETAILS - 1)
    expect(droppedDetails).toBe(2)
    expect(find(first[0]!)).toBeUndefined()
    expect(find(rest[0]!)).toBeDefined()
    expect(find(rest.at(-1)!)).toBeDefined()
    // a transaction confirmed again becomes the newest: the next drop takes the one after it
    record([rest[0]!, ev(MAX_DETAILS, 1, A), ev(MAX_DETAILS + 1, 1, A)])
    expect(find(rest[0]!)).toBeDefined()
    expect(find(rest[1]!)).toBeUndefined()
  })
})

describe('chain event details against a map by event id', () => {
  const DETAIL_FIELDS = [
    'repeat_count',
    'hops',
    'pools',
    'token_in',
    'amount_in',
    'price_source',
    'label',
    'internal'
  ] as const
  const pick = (d: object | undefined) =>
    d === undefined ? undefined : Object.fromEntries(DETAIL_FIELDS.map((k) => [k, (d as Record<string, unknown>)[k]]))
  // transactions' events one after another (pairs, as a transfer gives), repeats, plain and swap details
  const drawn = fc.array(
    fc.record({
      tx: fc.integer({ min: 0, max: 6 }),
      logIndex: fc.integer({ min: 0, max: 3 }),
      address: fc.constantFrom(A, B),
      chain: fc.constantFrom('ethereum', 'bsc'),
      plain: fc.boolean(),
      repeat: fc.integer({ min: 1, max: 5 }),
      source: fc.option(fc.constantFrom('stablecoin', 'candles_1m:binance')),
      label: fc.option(fc.constantFrom('Binance 1', 'x')),
      internal: fc.boolean()
    }),
    { maxLength: 30 }
  )
  it('finds for every event recorded the details of its last recording, and counts distinct events', () => {
    fc.assert(
      fc.property(fc.array(drawn, { minLength: 1, maxLength: 3 }), (batches) => {
        clearChainDetails()
        const want = new Map<string, ChainWhaleEvent>()
        for (const batch of batches) {
          const events = batch.map((d) =>
            d.plain
              ? ev(d.tx, d.logIndex, d.address, {
                  chain: d.chain,
                  hops: 0,
                  pools: [],
                  token_in: null,
                  amount_in: null,
                  label: null,
                  internal: false,
                  repeat_count: d.repeat,
                  price_source: d.source,
                  event_type: 'transfer_in'
                })
              : ev(d.tx, d.logIndex, d.address, {
                  chain: d.chain,
                  repeat_count: d.repeat,
                  price_source: d.source,
                  label: d.label,
                  internal: d.internal
                })
          )
          record(events)
          for (const e of events) want.set(chainEventId(e), e)
        }
        expect(chainDetailCount()).toBe(want.size)
        for (const e of want.values()) expect(pick(find(e))).toEqual(pick(e))
        expect(chainDetailOf('ethereum', ev(99, 0, A).tx_hash, 0, A)).toBeUndefined()
      }),
      { numRuns: 300 }
    )
  })
  it("leaves out events older than sinceMs, a transaction's pair of events included", () => {
    // tx 1 and 2 are before the window's start, tx 3 at it, tx 4 after it; tx 2 and 3 have two events each
    const since = ev(3, 0, A).ts
    const old = [ev(1, 1, A), ev(2, 1, A), ev(2, 2, B)]
    const kept = [ev(3, 1, A), ev(3, 2, B), ev(4, 1, A)]
    recordChainDetails([...old, ...kept], since)
    expect(chainDetailCount()).toBe(3)
    for (const e of old) expect(find(e)).toBeUndefined()
    for (const e of kept) expect(find(e)).toMatchObject({ hops: 2, repeat_count: 4 })
  })

  it('checks both events of a pair against sinceMs (a pair that straddles it keeps its newer event only)', () => {
    const since = ev(5, 0, A).ts
    const before = { ...ev(5, 1, A), ts: since - 1 }
    const after = ev(5, 2, B)
    recordChainDetails([after, before], since)
    expect(find(after)).toBeDefined()
    expect(find(before)).toBeUndefined()
    expect(chainDetailCount()).toBe(1)
  })
})
