/**
 * The chain sources' one-pass batch encoder (engine/whales/chain-batch-tsv.ts) and the EVM source's confirmed
 * payload (ingest/sources/chain/flow-records.ts, confirmedPayload) against the path they replace: for random
 * batches (escapes, UTF-8, null and fractional USD, circular routes, several chains, rows already stored)
 * the whale_transfers bytes equal `encodeTsv('whale_transfer', records)` of the `transferRecordOf` records,
 * the chunks equal `encodeRecords(flowBatch(fresh).records)` (table, columns, rows, bytes, hash: the same
 * dedup tokens and stored rows), the events' bytes equal chainEventsTsv's, and the read API's details match.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeTsv } from '../../engine/records/tsv.js'
import { WatchlistIndex } from '../../engine/watchlist/registry.js'
import { encodeChainBatch, eventKey } from '../../engine/whales/chain-batch-tsv.js'
import { chainDetailOf, clearChainDetails } from '../../engine/whales/chain-details.js'
import { chainEventsTsv, transferRecordOf } from '../../engine/whales/chain-event-store.js'
import type { ChainWhaleEvent } from '../../engine/whales/tx-events.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { confirmedPayload, flowBatch } from '../../ingest/sources/chain/flow-records.js'
import type { WatchedWallet } from '../../engine/watchlist/types.js'

const hex = (n: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n }).map((c) => `0x${c.join('')}`)
const text = fc.oneof(fc.constantFrom('USDC', 'ETH', 'Bïnance\thot\\1', 'a\nb', 'é'), hex(40))
const ADDRS = ['0x' + '1'.repeat(40), '0x' + '2'.repeat(40), '0x' + 'e'.repeat(40), 'So1ana\\x']
const money = fc.oneof(fc.double({ min: 0, max: 1e12, noNaN: true }), fc.integer({ min: 0, max: 1e9 }))

const event: fc.Arbitrary<ChainWhaleEvent> = fc.record({
  chain: fc.constantFrom('ethereum', 'bsc', 'solana'),
  tx_hash: fc.oneof(hex(64), fc.constantFrom('0x' + 'a'.repeat(64))),
  log_index: fc.integer({ min: 0, max: 500 }),
  block_number: fc.integer({ min: 0, max: 30_000_000 }),
  block_hash: hex(64),
  ts: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 0, 2) }),
  address: fc.constantFrom(...ADDRS),
  counterparty: fc.constantFrom(...ADDRS, ''),
  event_type: fc.constantFrom('transfer_in' as const, 'transfer_out' as const, 'swap' as const),
  token: text,
  amount: money,
  token_in: fc.option(text),
  amount_in: fc.option(money),
  usd_value: fc.option(money),
  price_source: fc.option(fc.constantFrom('stablecoin', 'candles_1m:binance')),
  hops: fc.integer({ min: 0, max: 4 }),
  pools: fc.array(hex(40), { maxLength: 3 }),
  repeat_count: fc.integer({ min: 1, max: 9 }),
  circular: fc.boolean(),
  internal: fc.boolean(),
  label: fc.option(text)
})

const EXCHANGE: WatchedWallet = {
  chain: 'ethereum',
  address: ADDRS[2]!,
  label: 'Exchange hot wallet',
  entity: 'exchange',
  owner: 'binance',
  source: 'https://example.org/label'
}
const detailOf = (e: ChainWhaleEvent) => chainDetailOf(e.chain, e.tx_hash, e.log_index, e.address)
const WATCH = new WatchlistIndex({ wallets: [EXCHANGE], tokens: [], files: [], loadedAt: 0 })

describe('encodeChainBatch', () => {
  it('writes whale_transfers bytes equal to encodeTsv of the transferRecordOf records, and the same events bytes', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), fc.integer({ min: 1, max: 2 ** 40 }), (events, version) => {
        const skip = new Set(events.filter((_, i) => i % 3 === 1).map(eventKey))
        const out = encodeChainBatch(events, 'confirmed', version, { skip })
        const want = events.filter((e) => !skip.has(eventKey(e))).flatMap((e) => transferRecordOf(e) ?? [])
        expect(out.records).toEqual(want)
        expect(out.transfers!.toString('utf8')).toBe(encodeTsv('whale_transfer', want))
        expect(out.counted.map(eventKey)).toEqual(want.map(eventKey))
        expect(out.events.equals(chainEventsTsv(events, 'confirmed', version))).toBe(true)
        expect(encodeChainBatch(events, 'confirmed', version, null).transfers).toBeNull()
      }),
      { numRuns: 300 }
    )
  })
})

describe('confirmedPayload', () => {
  it('gives the chunks, records and details of flowBatch + encodeRecords over the events not yet stored', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), fc.boolean(), (drawn, withStored) => {
        const events = drawn.map((e) => ({ ...e, chain: 'ethereum' }))
        const stored = withStored ? new Set(events.filter((_, i) => i % 2 === 0).map(eventKey)) : null
        clearChainDetails()
        const fresh = stored === null ? events : events.filter((e) => !stored.has(eventKey(e)))
        const before = flowBatch(fresh, 'ethereum', WATCH)
        const wantChunks = before.records.length > 0 ? encodeRecords(before.records, false) : []
        const wantDetails = fresh.map((e) => detailOf(e))
        clearChainDetails()
        const got = confirmedPayload(events, 7, stored, 'ethereum', WATCH)
        expect(got.records).toEqual(before.records)
        expect(got.transfers).toBe(before.transfers)
        expect(got.lastTs).toBe(before.lastTs)
        expect(got.chunks.map((c) => ({ ...c, data: Buffer.from(c.data).toString('utf8') }))).toEqual(
          wantChunks.map((c) => ({ ...c, data: Buffer.from(c.data).toString('utf8') }))
        )
        expect(got.eventsTsv.equals(chainEventsTsv(events, 'confirmed', 7))).toBe(true)
        expect(fresh.map((e) => detailOf(e))).toEqual(wantDetails)
      }),
      { numRuns: 200 }
    )
  })

  it('reports exchange net flow readings after the transfers, as the pipeline path did', () => {
    const base: ChainWhaleEvent = {
      chain: 'ethereum',
      tx_hash: '0x' + '5'.repeat(64),
      log_index: 1,
      block_number: 1,
      block_hash: '0x' + '6'.repeat(64),
      ts: Date.UTC(2026, 0, 1, 10),
      address: ADDRS[0]!,
      counterparty: ADDRS[2]!,
      event_type: 'transfer_out',
      token: 'USDC',
      amount: 5e6,
      token_in: null,
      amount_in: null,
      usd_value: 5e6,
      price_source: 'stablecoin',
      hops: 0,
      pools: [],
      repeat_count: 1,
      circular: false,
      internal: false,
      label: null
    }
    const got = confirmedPayload([base], 1, null, 'ethereum', WATCH)
    expect(got.chunks.map((c) => [c.table, c.rows])).toEqual([
      ['whale_transfers', 1],
      ['onchain_metrics', 1]
    ])
    expect(got.records[1]).toMatchObject({ kind: 'onchain_metric', metric: 'exchange_netflow_usd', value: 5e6 })
  })
})
