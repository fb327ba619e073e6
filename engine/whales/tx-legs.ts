/**
 * @module
 * What one transaction did to balances, as decoded from its logs and its own value (before any netting):
 * the input of the per-transaction collapse (net-deltas.ts, tx-events.ts). Addresses are lower-case 0x hex on
 * EVM chains and base58 on Solana; amounts are raw integers in the token's smallest unit.
 */

/** The asset id of the chain's coin; the wrapped native token is mapped onto it (one asset, see net-deltas.ts). */
export const NATIVE = 'native'

/** One movement of value between two addresses, decoded from a log or from the transaction's value. */
export interface RawLeg {
  /**
   * `transfer`: ERC-20 Transfer (exactly 3 topics) or SPL transfer; `value`: the transaction's own coin
   * value (tx.from → tx.to); `deposit` / `withdrawal`: wrapped-native Deposit(dst) / Withdrawal(src) — the
   * holder swaps coin for wrapped coin, which is one asset here, so a wrap alone moves nothing
   */
  readonly kind: 'transfer' | 'value' | 'deposit' | 'withdrawal'
  /** token contract (lower-case) or NATIVE; the wrapped native contract is mapped to NATIVE by the caller */
  readonly token: string
  /** sender; for deposit / withdrawal the holder */
  readonly from: string
  /** receiver; for deposit / withdrawal the holder too */
  readonly to: string
  /** raw integer amount, > 0 */
  readonly amount: bigint
  /** log index in the block; -1 for the transaction's value */
  readonly logIndex: number
}

/** A DEX pool's Swap log (Uniswap V2/V3 style, Pancake, Trader Joe, Aerodrome): one hop of a route. */
export interface RawSwap {
  readonly logIndex: number
  /** the pool contract that emitted it (lower-case) */
  readonly pool: string
}

/** One transaction's decoded legs and swaps, in log order. */
export interface RawTx {
  readonly chain: string
  readonly txHash: string
  readonly blockNumber: number
  readonly blockHash: string
  /** block time, epoch ms */
  readonly ts: number
  /** the transaction's sender (the trader unless a smart wallet or relayer sends for someone) */
  readonly sender: string
  /** the chain's wrapped-native contract (lower-case), or null: coin paid to it for a Deposit is a wrap */
  readonly wrappedNative: string | null
  readonly legs: readonly RawLeg[]
  readonly swaps: readonly RawSwap[]
  /**
   * pools (lower-case) that emitted a liquidity Mint or Burn log: liquidity added or removed, not a trade
   * (net-deltas.ts); absent when the transaction has none. A V2 pool is also its LP token's contract.
   */
  readonly liquidityPools?: readonly string[]
}
