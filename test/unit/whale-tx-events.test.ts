/**
 * The per-transaction collapse (engine/whales/net-deltas.ts, tx-events.ts): decoded legs of one transaction
 * → one event per reported wallet. Cases from the issue: a direct transfer, a two-hop swap as one event
 * (hops, pools, repeat_count), a circular route flagged, an internal exchange transfer, unpriced → null.
 */
import { describe, expect, it } from 'vitest'
import {
  txEvents,
  type EventPricer,
  type TokenInfo,
  type TxEventContext,
  type WalletInfo
} from '../../engine/whales/tx-events.js'
import { NATIVE, type RawLeg, type RawSwap, type RawTx } from '../../engine/whales/tx-legs.js'

const a = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`
const TRADER = a(0xaa)
const ROUTER = a(0xbb)
const P1 = a(0x01)
const P2 = a(0x02)
const P3 = a(0x03)
const AAA = a(0xa1)
const BBB = a(0xb1)
const USDC = a(0xc1)
const BIN1 = a(0xe1)
const BIN2 = a(0xe2)
const CB = a(0xe3)
const WETH = a(0x77)
const E18 = 10n ** 18n

const TOKENS: Record<string, TokenInfo> = {
  [NATIVE]: { symbol: 'ETH', decimals: 18, priceAsset: 'ETH' },
  [USDC]: { symbol: 'USDC', decimals: 6, priceAsset: 'USD' },
  [BBB]: { symbol: 'BBB', decimals: 18, priceAsset: 'BBB' }
}
const WALLETS: Record<string, WalletInfo> = {
  [BIN1]: { label: 'Binance 1', entity: 'exchange', owner: 'Binance' },
  [BIN2]: { label: 'Binance 2', entity: 'exchange', owner: 'Binance' },
  [CB]: { label: 'Coinbase', entity: 'exchange', owner: 'Coinbase' }
}
const pricer: EventPricer = {
  price: (asset) => (asset === 'ETH' ? { usd: 3_000, source: 'trades:binance:ETHUSDT' } : null)
}
const ctx: TxEventContext = {
  token: (t) => TOKENS[t],
  wallet: (w) => WALLETS[w],
  pricer,
  minUsd: 100_000
}

let nextLog = 0
const leg = (kind: RawLeg['kind'], token: string, from: string, to: string, amount: bigint): RawLeg => ({
  kind,
  token,
  from,
  to,
  amount,
  logIndex: kind === 'value' ? -1 : nextLog++
})
const swap = (pool: string): RawSwap => ({ pool, logIndex: nextLog++ })
function tx(sender: string, legs: RawLeg[], swaps: RawSwap[] = []): RawTx {
  return {
    chain: 'ethereum',
    txHash: '0xt',
    blockNumber: 7,
    blockHash: '0xb',
    ts: 1_000,
    sender,
    wrappedNative: WETH,
    legs,
    swaps
  }
}

describe('per-transaction whale events', () => {
  it('a direct transfer of a watched wallet is one transfer_out and one transfer_in', () => {
    const events = txEvents(tx(BIN1, [leg('transfer', USDC, BIN1, TRADER, 2_000_000n * 10n ** 6n)]), ctx)
    expect(events.map((e) => [e.address, e.event_type, e.token, e.amount, e.usd_value, e.counterparty])).toEqual([
      [BIN1, 'transfer_out', 'USDC', 2_000_000, 2_000_000, TRADER],
      [TRADER, 'transfer_in', 'USDC', 2_000_000, 2_000_000, BIN1]
    ])
    expect(events[0]).toMatchObject({
      price_source: 'stablecoin',
      internal: false,
      circular: false,
      label: 'Binance 1'
    })
    expect(events[1]!.label).toBeNull()
  })

  it('a two-hop swap ETH → AAA → BBB is one swap event of the sender; router and pools get none', () => {
    nextLog = 0
    const legs = [
      leg('value', NATIVE, TRADER, ROUTER, 100n * E18),
      leg('deposit', NATIVE, ROUTER, ROUTER, 100n * E18),
      leg('transfer', NATIVE, ROUTER, P1, 100n * E18),
      leg('transfer', AAA, P1, P2, 5_000n * E18),
      leg('transfer', BBB, P2, TRADER, 943n * E18)
    ]
    const events = txEvents(tx(TRADER, legs, [swap(P1), swap(P2)]), ctx)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      address: TRADER,
      event_type: 'swap',
      token: 'BBB',
      amount: 943,
      token_in: 'ETH',
      amount_in: 100,
      usd_value: 300_000,
      price_source: 'trades:binance:ETHUSDT',
      hops: 2,
      pools: [P1, P2],
      repeat_count: 2,
      circular: false
    })
  })

  it('native coin a router unwraps goes to the sender (BBB → ETH)', () => {
    nextLog = 0
    const legs = [
      leg('transfer', BBB, TRADER, P1, 900n * E18),
      leg('transfer', NATIVE, P1, ROUTER, 50n * E18),
      leg('withdrawal', NATIVE, ROUTER, ROUTER, 50n * E18)
    ]
    const events = txEvents(tx(TRADER, legs, [swap(P1)]), ctx)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      event_type: 'swap',
      token: 'ETH',
      amount: 50,
      token_in: 'BBB',
      usd_value: 150_000
    })
  })

  it('wrapping or unwrapping alone moves nothing', () => {
    nextLog = 0
    const wrap = [leg('value', NATIVE, TRADER, WETH, 500n * E18), leg('deposit', NATIVE, TRADER, TRADER, 500n * E18)]
    expect(txEvents(tx(TRADER, wrap), ctx)).toEqual([])
    expect(txEvents(tx(TRADER, [leg('withdrawal', NATIVE, TRADER, TRADER, 500n * E18)]), ctx)).toEqual([])
  })

  it('a circular route ETH → AAA → BBB → ETH is flagged, sized by what went round', () => {
    nextLog = 0
    const legs = [
      leg('value', NATIVE, TRADER, ROUTER, 100n * E18),
      leg('deposit', NATIVE, ROUTER, ROUTER, 100n * E18),
      leg('transfer', NATIVE, ROUTER, P1, 100n * E18),
      leg('transfer', AAA, P1, P2, 5_000n * E18),
      leg('transfer', BBB, P2, P3, 900n * E18),
      leg('transfer', NATIVE, P3, ROUTER, 99n * E18),
      leg('withdrawal', NATIVE, ROUTER, ROUTER, 99n * E18)
    ]
    const events = txEvents(tx(TRADER, legs, [swap(P1), swap(P2), swap(P3)]), ctx)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      address: TRADER,
      event_type: 'swap',
      circular: true,
      token: 'ETH',
      amount: 100,
      usd_value: 300_000,
      hops: 3
    })
  })

  it('a transfer between two wallets of one exchange is internal; to another exchange it is not', () => {
    const internal = txEvents(tx(BIN1, [leg('transfer', USDC, BIN1, BIN2, 10n ** 12n)]), ctx)
    expect(internal.map((e) => [e.address, e.internal])).toEqual([
      [BIN1, true],
      [BIN2, true]
    ])
    const across = txEvents(tx(BIN1, [leg('transfer', USDC, BIN1, CB, 10n ** 12n)]), ctx)
    expect(across.map((e) => e.internal)).toEqual([false, false])
  })

  it('an unpriced event keeps usd_value null for a watched wallet and is not reported for others', () => {
    const events = txEvents(tx(BIN1, [leg('transfer', BBB, BIN1, TRADER, 10n ** 30n)]), ctx)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ address: BIN1, token: 'BBB', amount: 1e12, usd_value: null, price_source: null })
  })

  it('a buy or a sale of an unlisted token (decimals unknown): a swap naming it by address in raw units, valued on the known side', () => {
    // AAA is not a known token: its transfer alone gives no event (no value, no units)
    expect(txEvents(tx(BIN1, [leg('transfer', AAA, BIN1, TRADER, 10n ** 30n)]), ctx)).toEqual([])
    const buy = tx(
      TRADER,
      [
        leg('value', NATIVE, TRADER, ROUTER, 500n * E18),
        leg('transfer', NATIVE, ROUTER, P1, 500n * E18),
        leg('transfer', AAA, P1, TRADER, 123_456_789n * 10n ** 20n)
      ],
      [swap(P1)]
    )
    const [b] = txEvents(buy, ctx)
    expect(b).toMatchObject({
      address: TRADER,
      event_type: 'swap',
      token: AAA,
      amount: 123_456_789e20,
      token_in: 'ETH',
      amount_in: 500,
      decimals_unknown: 'token',
      usd_value: 1_500_000,
      counterparty: P1,
      pools: [P1]
    })
    const sale = tx(
      TRADER,
      [leg('transfer', AAA, TRADER, P1, 7_000n), leg('transfer', USDC, P1, TRADER, 200_000n * 10n ** 6n)],
      [swap(P1)]
    )
    expect(txEvents(sale, ctx)).toMatchObject([
      {
        event_type: 'swap',
        token: 'USDC',
        amount: 200_000,
        token_in: AAA,
        amount_in: 7_000,
        decimals_unknown: 'token_in'
      }
    ])
    // no Swap log in the transaction: not a trade, no event
    expect(txEvents({ ...buy, swaps: [] }, ctx)).toEqual([])
    // minted to the wallet (an LP token of a pool whose Mint log is unknown): not a buy
    const minted = tx(
      TRADER,
      [leg('transfer', USDC, TRADER, P2, 200_000n * 10n ** 6n), leg('transfer', AAA, a(0), TRADER, 10n ** 30n)],
      [swap(P2)]
    )
    expect(txEvents(minted, ctx)).toEqual([])
    // beside a known side of each direction, the unknown asset is left out: the swap shows what it knows
    const spam = tx(
      BIN1,
      [
        leg('value', NATIVE, BIN1, ROUTER, 500n * E18),
        leg('transfer', NATIVE, ROUTER, P1, 500n * E18),
        leg('transfer', BBB, P1, BIN1, 7n * E18),
        leg('transfer', AAA, P2, BIN1, 10n ** 30n)
      ],
      [swap(P1)]
    )
    expect(
      txEvents(spam, ctx).map((e) => [e.event_type, e.token, e.amount, e.token_in, e.amount_in, e.decimals_unknown])
    ).toEqual([['swap', 'BBB', 7, 'ETH', 500, null]])
  })

  it('adding or removing liquidity is no event: not for the provider, not for the pool', () => {
    // addLiquidityETH: coin to the router, wrapped to the pair, BBB straight to the pair, LP minted to the provider
    const add: RawTx = {
      ...tx(TRADER, [
        leg('value', NATIVE, TRADER, ROUTER, 2_000n * E18),
        leg('deposit', NATIVE, ROUTER, ROUTER, 2_000n * E18),
        leg('transfer', NATIVE, ROUTER, P1, 2_000n * E18),
        leg('transfer', BBB, TRADER, P1, 3_000_000n * E18),
        leg('transfer', P1, a(0), TRADER, 30_000n * E18)
      ]),
      liquidityPools: [P1]
    }
    expect(txEvents(add, ctx)).toEqual([])
    // removeLiquidityETH: LP back to the pair, burnt; BBB and wrapped coin to the router, unwrapped and paid on
    const remove: RawTx = {
      ...tx(BIN1, [
        leg('transfer', P1, BIN1, P1, 30_000n * E18),
        leg('transfer', P1, P1, a(0), 30_000n * E18),
        leg('transfer', BBB, P1, ROUTER, 3_000_000n * E18),
        leg('transfer', NATIVE, P1, ROUTER, 2_000n * E18),
        leg('withdrawal', NATIVE, ROUTER, ROUTER, 2_000n * E18),
        leg('transfer', BBB, ROUTER, BIN1, 3_000_000n * E18)
      ]),
      liquidityPools: [P1]
    }
    expect(txEvents(remove, ctx)).toEqual([])
    // the same legs without the pool's liquidity log: the LP token is minted, not bought, and burnt back
    // through its own contract, so never the pool's address as a token
    for (const e of txEvents({ ...add, liquidityPools: [] }, ctx)) expect(e.token).not.toBe(P1)
  })

  it('a V3 position (no LP token): the provider sending both tokens to the minting pool gets no event', () => {
    const mint: RawTx = {
      ...tx(BIN1, [
        leg('transfer', USDC, BIN1, P2, 2_000_000n * 10n ** 6n),
        leg('transfer', NATIVE, BIN1, P2, 500n * E18)
      ]),
      liquidityPools: [P2]
    }
    expect(txEvents(mint, ctx)).toEqual([])
  })

  it("a sale that makes a fee token add liquidity to the pool it sells into stays the seller's swap", () => {
    // the holder sells BBB into P1; the token contract swaps its fees through P1 and adds them as liquidity
    // there (P1 swaps and mints in the same transaction), the LP tokens going to the token contract
    const sale: RawTx = {
      ...tx(
        BIN1,
        [
          leg('transfer', BBB, BIN1, P1, 1_000_000n * E18),
          leg('transfer', NATIVE, P1, ROUTER, 300n * E18),
          leg('withdrawal', NATIVE, ROUTER, ROUTER, 300n * E18),
          leg('transfer', BBB, BBB, P1, 10_000n * E18),
          leg('transfer', NATIVE, P1, BBB, 3n * E18),
          leg('transfer', NATIVE, BBB, P1, 3n * E18),
          leg('transfer', P1, a(0), BBB, 5n * E18)
        ],
        [swap(P1), swap(P1)]
      ),
      liquidityPools: [P1]
    }
    const events = txEvents(sale, ctx)
    expect(events.map((e) => [e.address, e.event_type, e.token, e.amount, e.token_in, e.amount_in])).toEqual([
      [BIN1, 'swap', 'ETH', 300, 'BBB', 1_000_000]
    ])
  })

  it('unwatched wallets below minUsd are not reported; the zero address never is', () => {
    const small = txEvents(tx(TRADER, [leg('transfer', USDC, TRADER, ROUTER, 99_999n * 10n ** 6n)]), ctx)
    expect(small).toEqual([])
    const mint = txEvents(tx(TRADER, [leg('transfer', USDC, a(0), TRADER, 200_000n * 10n ** 6n)]), ctx)
    expect(mint.map((e) => [e.address, e.event_type, e.counterparty])).toEqual([[TRADER, 'transfer_in', a(0)]])
  })
})
