/**
 * The per-transaction collapse's array layout (engine/whales/net-deltas.ts, tx-events.ts) against the Map/Set
 * version it replaced (test/helpers/whales/*-reference.ts, copies of that code): for random transactions
 * (transfers, the coin value, wraps and unwraps, swaps with pools, mints and burns, watched exchange wallets,
 * priced, stable and unknown tokens, ties, round trips, a wallet count past the index threshold) the events
 * are deep-equal, in the same order, and so are their chain_whale_events and whale_transfers bytes.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeChainBatch } from '../../engine/whales/chain-batch-tsv.js'
import { ZERO_ADDRESS } from '../../engine/whales/net-deltas.js'
import {
  txEvents,
  type EventPricer,
  type TokenInfo,
  type TxEventContext,
  type WalletInfo
} from '../../engine/whales/tx-events.js'
import { NATIVE, type RawLeg, type RawTx } from '../../engine/whales/tx-legs.js'
import { txEventsReference } from '../helpers/whales/tx-events-reference.js'

const a = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`
const WETH = a(0x77)
const POOLS = [a(0x01), a(0x02), a(0x03)]
const PEOPLE = [a(0xaa), a(0xbb), a(0xe1), a(0xe2), a(0xe3), a(0xcc), ZERO_ADDRESS, WETH, ...POOLS]
const TOKENS: Record<string, TokenInfo> = {
  [NATIVE]: { symbol: 'ETH', decimals: 18, priceAsset: 'ETH' },
  [a(0xc1)]: { symbol: 'USDC', decimals: 6, priceAsset: 'USD' },
  [a(0xb1)]: { symbol: 'BBB', decimals: 18, priceAsset: 'BBB' },
  [a(0xd1)]: { symbol: 'DDD', decimals: 0, priceAsset: 'DDD' }
}
const ASSETS = [NATIVE, a(0xc1), a(0xb1), a(0xd1), a(0xf1), a(0xf2)]
const WALLETS: Record<string, WalletInfo> = {
  [a(0xe1)]: { label: 'Binance 1', entity: 'exchange', owner: 'Binance' },
  [a(0xe2)]: { label: 'Binance 2', entity: 'exchange', owner: 'Binance' },
  [a(0xe3)]: { label: 'Coinbase', entity: 'exchange', owner: 'Coinbase' }
}
const pricer: EventPricer = {
  price: (asset, ts) =>
    asset === 'ETH'
      ? { usd: 3_000, source: 'candles_1m:binance' }
      : asset === 'DDD' && ts % 2
        ? { usd: 5e4, source: 'x' }
        : null
}
const ctx = (minUsd: number): TxEventContext => ({
  token: (t) => TOKENS[t],
  wallet: (w) => WALLETS[w],
  pricer,
  minUsd
})

const amount = fc.oneof(
  fc.constantFrom(1n, 10n ** 6n, 10n ** 18n, 5n * 10n ** 17n, 0n),
  fc.bigInt({ min: 1n, max: 10n ** 24n })
)
const leg = (many: boolean): fc.Arbitrary<Omit<RawLeg, 'logIndex'>> =>
  fc.record({
    kind: fc.constantFrom(
      'transfer' as const,
      'transfer' as const,
      'value' as const,
      'deposit' as const,
      'withdrawal' as const
    ),
    token: fc.constantFrom(...ASSETS),
    from: many
      ? fc.oneof(fc.constantFrom(...PEOPLE), fc.integer({ min: 0x100, max: 0x120 }).map(a))
      : fc.constantFrom(...PEOPLE),
    to: many
      ? fc.oneof(fc.constantFrom(...PEOPLE), fc.integer({ min: 0x100, max: 0x120 }).map(a))
      : fc.constantFrom(...PEOPLE),
    amount
  })

const tx = (many: boolean): fc.Arbitrary<RawTx> =>
  fc
    .record({
      sender: fc.constantFrom(...PEOPLE.slice(0, 6)),
      legs: fc.array(leg(many), many ? { minLength: 40, maxLength: 80 } : { maxLength: 8 }),
      swaps: fc.array(fc.constantFrom(...POOLS), { maxLength: 3 }),
      ts: fc.integer({ min: 1, max: 4 })
    })
    .map(({ sender, legs, swaps, ts }) => ({
      chain: 'ethereum',
      txHash: '0x' + 'f'.repeat(64),
      blockNumber: 7,
      blockHash: '0x' + 'b'.repeat(64),
      ts,
      sender,
      wrappedNative: WETH,
      legs: legs.map((l, i) => ({
        ...l,
        token: l.kind === 'deposit' || l.kind === 'withdrawal' || l.kind === 'value' ? NATIVE : l.token,
        to: l.kind === 'deposit' || l.kind === 'withdrawal' ? l.from : l.to,
        logIndex: l.kind === 'value' ? -1 : i
      })),
      swaps: swaps.map((pool, i) => ({ pool, logIndex: 100 + i }))
    }))

describe('per-transaction collapse, array layout', () => {
  it('sizes a circular route by the first asset sent on a tie, as before', () => {
    const [me, pool] = [a(0xaa), POOLS[0]!]
    // $3,000 of each (ETH at 3,000, USDC at 1): a tie, broken by the first asset sent
    const legs: RawLeg[] = [
      { kind: 'transfer', token: a(0xc1), from: a(0xcc), to: me, amount: 5n, logIndex: 0 },
      { kind: 'transfer', token: NATIVE, from: me, to: pool, amount: 10n ** 18n, logIndex: 1 },
      { kind: 'transfer', token: a(0xc1), from: me, to: pool, amount: 3000n * 10n ** 6n, logIndex: 2 },
      { kind: 'transfer', token: NATIVE, from: pool, to: me, amount: 10n ** 18n, logIndex: 3 },
      { kind: 'transfer', token: a(0xc1), from: pool, to: me, amount: 3000n * 10n ** 6n - 5n, logIndex: 4 }
    ]
    const t: RawTx = {
      chain: 'ethereum',
      txHash: '0x' + 'f'.repeat(64),
      blockNumber: 7,
      blockHash: '0x' + 'b'.repeat(64),
      ts: 1,
      sender: me,
      wrappedNative: WETH,
      legs,
      swaps: [{ pool, logIndex: 5 }]
    }
    const [event] = txEvents(t, ctx(0)).filter((e) => e.address === me)
    expect(event).toMatchObject({ circular: true, token: 'ETH', amount: 1, usd_value: 3000 })
    expect(txEvents(t, ctx(0))).toEqual(txEventsReference(t, ctx(0)))
  })

  for (const many of [false, true]) {
    it(`gives the events of the Map/Set version (${many ? 'many wallets' : 'few wallets'})`, () => {
      fc.assert(
        fc.property(tx(many), fc.constantFrom(0, 100_000), (t, minUsd) => {
          const got = txEvents(t, ctx(minUsd))
          const want = txEventsReference(t, ctx(minUsd))
          expect(got).toEqual(want)
          const g = encodeChainBatch(got, 'confirmed', 1, {})
          const w = encodeChainBatch(want, 'confirmed', 1, {})
          expect(g.events.equals(w.events)).toBe(true)
          expect(g.transfers!.equals(w.transfers!)).toBe(true)
        }),
        { numRuns: many ? 400 : 3000 }
      )
    })
  }
})
