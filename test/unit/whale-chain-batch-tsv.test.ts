/**
 * The chain sources' one-pass batch encoder (engine/whales/chain-batch-tsv.ts) and the EVM source's confirmed
 * payload (ingest/sources/chain/flow-records.ts, ConfirmedGroup) against the path they replace: for random
 * batches (escapes, UTF-8, null and fractional USD, circular routes, several chains, rows already stored)
 * the whale_transfers bytes equal `encodeTsv('whale_transfer', records)` of the `transferRecordOf` records,
 * the chunks equal `encodeRecords(flowBatch(fresh).records)` (table, columns, rows, bytes, hash: the same
 * dedup tokens and stored rows), the events' bytes equal chainEventsTsv's, and the read API's details match.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeTsv } from '../../engine/records/tsv.js'
import { escapeTsv } from '../../engine/runtime/tsv-row.js'
import { WatchlistIndex } from '../../engine/watchlist/registry.js'
import { encodeChainBatch, eventKey } from '../../engine/whales/chain-batch-tsv.js'
import { chainDetailOf, clearChainDetails } from '../../engine/whales/chain-details.js'
import { transferRecordOf } from '../../engine/whales/chain-batch-tsv.js'
import { chainEventsTsv } from '../../engine/whales/chain-event-store.js'
import type { ChainWhaleEvent } from '../../engine/whales/tx-events.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { ConfirmedGroup, flowBatch } from '../../ingest/sources/chain/flow-records.js'
import { CHAIN_TRANSFER } from '../fixtures/evm/whales/chain-event.js'
import type { WatchedWallet } from '../../engine/watchlist/types.js'

const hex = (n: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n }).map((c) => `0x${c.join('')}`)
const text = fc.oneof(
  fc.constantFrom('USDC', 'ETH', 'Bïnance\thot\\1', 'a\nb\r', 'é', '\ud83d\udc33 whale', 'lone \ud800', ''),
  hex(40),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 })
)
const ADDRS = ['0x' + '1'.repeat(40), '0x' + '2'.repeat(40), '0x' + 'e'.repeat(40), 'So1ana\\x']
const money = fc.oneof(
  fc.double({ min: 0, max: 1e12, noNaN: true }),
  fc.integer({ min: 0, max: 1e9 }),
  fc.constantFrom(0, -0, 1e-7, 1e21, 2 ** 53, 2 ** 53 + 2, 9007199254740991, 0.1 + 0.2, 123456789.125)
)

/**
 * The start of the hour before this one, epoch ms: events' times stay inside the 7-day whale window, where the
 * read API's details are remembered (chain-details.ts leaves older events out)
 */
const RECENT_HOUR = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000

const event: fc.Arbitrary<ChainWhaleEvent> = fc.record({
  // hostile chain and hash texts too: the whale_transfers line escapes them, copied from the events line
  chain: fc.constantFrom('ethereum', 'bsc', 'solana', 'e\tvil\\chain\n', 'ché'),
  tx_hash: fc.oneof(hex(64), fc.constantFrom('0x' + 'a'.repeat(64)), text),
  log_index: fc.integer({ min: 0, max: 100_000 }),
  block_number: fc.oneof(fc.integer({ min: 0, max: 30_000_000 }), fc.constantFrom(0, 9, 10, 99, 100, 2 ** 53 - 1)),
  block_hash: hex(64),
  ts: fc.integer({ min: RECENT_HOUR - 86_400_000, max: RECENT_HOUR }),
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
  pools: fc.array(fc.oneof(hex(40), fc.constantFrom('So1anaPoo1', 'pööl')), { maxLength: 3 }),
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
/** the chain_whale_events line as the encoder before the byte writer built it (template literal, escapeTsv) */
function referenceEventsTsv(events: readonly ChainWhaleEvent[], status: string, version: number): string {
  const nullable = (v: string | number | null): string =>
    v === null ? '\\N' : typeof v === 'number' ? String(v) : escapeTsv(v)
  const tail = `\t${status}\t${version}\t${status === 'retracted' ? 1 : 0}\n`
  let out = ''
  for (const e of events) {
    const ts = new Date(e.ts).toISOString().replace('T', ' ').replace('Z', '')
    const pools = e.pools.length === 0 ? '[]' : `[${e.pools.map((p) => `'${p}'`).join(',')}]`
    out +=
      `${e.chain}\t${e.tx_hash}\t${e.log_index}\t${escapeTsv(e.address)}\t${e.block_number}\t${e.block_hash}\t` +
      `${ts}\t${escapeTsv(e.counterparty)}\t${e.event_type}\t${escapeTsv(e.token)}\t${e.amount}\t` +
      `${nullable(e.token_in)}\t${nullable(e.amount_in)}\t${nullable(e.usd_value)}\t${nullable(e.price_source)}\t` +
      `${e.hops}\t${pools}\t${e.repeat_count}\t${e.circular}\t${e.internal}\t${nullable(e.label)}` +
      tail
  }
  return out
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
        expect(out.counted.map(eventKey)).toEqual(want.map(eventKey))
        expect(out.events.equals(Buffer.from(referenceEventsTsv(events, 'confirmed', version)))).toBe(true)
        expect(out.transfers!.equals(Buffer.from(encodeTsv('whale_transfer', want)))).toBe(true)
        // bytes, not text: a lone surrogate is written as U+FFFD, as Buffer.from writes it
        expect(
          chainEventsTsv(events, 'retracted', version).equals(
            Buffer.from(referenceEventsTsv(events, 'retracted', version))
          )
        ).toBe(true)
        expect(encodeChainBatch(events, 'confirmed', version, null).transfers).toBeNull()
      }),
      { numRuns: 300 }
    )
  })
})

/** a priced USDC transfer from a wallet to the watched exchange wallet at 10:00 UTC (one net-flow reading) */
const exchangeOut = (tx: string, usd: number): ChainWhaleEvent => ({
  ...CHAIN_TRANSFER,
  tx_hash: tx,
  log_index: 1,
  block_number: 1,
  ts: Date.UTC(2026, 0, 1, 10),
  address: ADDRS[0]!,
  counterparty: ADDRS[2]!,
  amount: usd,
  usd_value: usd
})

/** one range's payload: a group with a single add */
const payloadOf = (events: readonly ChainWhaleEvent[], version: number, stored: ReadonlySet<string> | null) =>
  new ConfirmedGroup(version, 'ethereum', WATCH, events.length).add(events, stored).finish()

describe('ConfirmedGroup, one range', () => {
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
        // the details compared below exist: every event that counts in flows has one
        fresh.forEach((e, i) => {
          if (transferRecordOf(e) !== null) expect(wantDetails[i]).toBeDefined()
        })
        clearChainDetails()
        const got = payloadOf(events, 7, stored)
        expect(got.records).toEqual(before.records)
        expect(got.transfers).toBe(before.transfers)
        expect(got.lastTs).toBe(before.lastTs)
        expect(got.chunks.map((c) => ({ ...c, data: Buffer.from(c.data).toString('hex') }))).toEqual(
          wantChunks.map((c) => ({ ...c, data: Buffer.from(c.data).toString('hex') }))
        )
        expect(got.eventsTsv.equals(chainEventsTsv(events, 'confirmed', 7))).toBe(true)
        expect(fresh.map((e) => detailOf(e))).toEqual(wantDetails)
      }),
      { numRuns: 200 }
    )
  })

  it('reports exchange net flow readings after the transfers, as the pipeline path did', () => {
    const base = exchangeOut('0x' + '5'.repeat(64), 5e6)
    const got = payloadOf([base], 1, null)
    expect(got.chunks.map((c) => [c.table, c.rows])).toEqual([
      ['whale_transfers', 1],
      ['onchain_metrics', 1]
    ])
    expect(got.records[1]).toMatchObject({ kind: 'onchain_metric', metric: 'exchange_netflow_usd', value: 5e6 })
  })
})

describe('ConfirmedGroup', () => {
  it('ranges added one by one give the payload of all their events at once (bytes, chunks, readings, details)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(event, { maxLength: 15 }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (parts, withStored) => {
          // one hour for every event, so readings of different parts fall on the same (asset, hour) sum
          const ranges = parts.map((p) =>
            p.map((e) => ({ ...e, chain: 'ethereum', ts: RECENT_HOUR + (e.ts % 3_600_000) }))
          )
          const all = ranges.flat()
          // the first range only is checked against stored rows, as the source's first batch after a start
          // (keys that a later range repeats are left out: one add of all would skip those there too)
          const later = new Set(ranges.slice(1).flat().map(eventKey))
          const firstKeys = ranges[0]!.filter((_, i) => i % 2 === 0).map(eventKey)
          const stored = withStored ? new Set(firstKeys.filter((k) => !later.has(k))) : null
          clearChainDetails()
          const want = payloadOf(all, 4, stored)
          const wantDetails = all.map((e) => detailOf(e))
          clearChainDetails()
          const group = new ConfirmedGroup(4, 'ethereum', WATCH, 1)
          ranges.forEach((r, i) => group.add(r, i === 0 ? stored : null))
          expect(group.events).toBe(all.length)
          const got = group.finish()
          expect(got.records).toEqual(want.records)
          expect(got.transfers).toBe(want.transfers)
          expect(got.lastTs).toBe(want.lastTs)
          expect(got.eventsTsv.equals(want.eventsTsv)).toBe(true)
          expect(got.transfersTsv.equals(want.transfersTsv)).toBe(true)
          expect(got.chunks.map((c) => ({ ...c, data: Buffer.from(c.data).toString('hex') }))).toEqual(
            want.chunks.map((c) => ({ ...c, data: Buffer.from(c.data).toString('hex') }))
          )
          expect(all.map((e) => detailOf(e))).toEqual(wantDetails)
        }
      ),
      { numRuns: 200 }
    )
  })

  it('sums the net flow of one hour across its ranges into one reading', () => {
    const got = new ConfirmedGroup(1, 'ethereum', WATCH, 1)
      .add([exchangeOut('0x' + '1'.repeat(64), 2e6)], null)
      .add([exchangeOut('0x' + '2'.repeat(64), 3e6)], null)
      .finish()
    expect(got.chunks.map((c) => [c.table, c.rows])).toEqual([
      ['whale_transfers', 2],
      ['onchain_metrics', 1]
    ])
    expect(got.records[2]).toMatchObject({ kind: 'onchain_metric', metric: 'exchange_netflow_usd', value: 5e6 })
  })
  it('remembers the details of events inside the 7-day whale window only, on both paths', () => {
    const day = 86_400_000
    const recent = { ...exchangeOut('0x' + '3'.repeat(64), 2e6), ts: RECENT_HOUR }
    const old = { ...exchangeOut('0x' + '4'.repeat(64), 2e6), ts: RECENT_HOUR - 8 * day }
    clearChainDetails()
    new ConfirmedGroup(1, 'ethereum', WATCH, 2).add([old, recent], null).finish()
    expect(detailOf(recent)).toBeDefined()
    expect(detailOf(old)).toBeUndefined()
    clearChainDetails()
    flowBatch([old, recent], 'ethereum', WATCH)
    expect(detailOf(recent)).toBeDefined()
    expect(detailOf(old)).toBeUndefined()
  })
})
