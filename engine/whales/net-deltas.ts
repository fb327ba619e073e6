/**
 * @module
 * Per-transaction net balance changes per wallet and asset (reference: evm-node-intelligence-and-whales.md
 * 3.3). The rules, which make the coin and its wrapped token one asset (NATIVE):
 *
 * - `transfer` / `value`: −amount for `from`, +amount for `to`.
 * - `deposit` (WETH9 Deposit(dst)): the holder paid coin and got the same amount of wrapped coin: net 0 for
 *   the holder, nothing to record. When the holder paid with the transaction's own value (a direct
 *   `deposit{value}` to the wrapped-native contract), that value leg is the same payment and is dropped; a
 *   router's payment is an internal call that logs never show.
 * - `withdrawal` (Withdrawal(src)): the holder burnt wrapped coin and got coin: net 0 for the holder. The coin
 *   usually goes on to the transaction's sender through an internal call that logs do not show (a router
 *   unwrapping for its caller). So when the holder is not the sender and ends the transaction with a positive
 *   NATIVE balance, up to the withdrawn amount of it is moved to the sender. A trace
 *   (debug_traceTransaction) would say exactly; logs alone cannot.
 * - the zero address (mints, burns) and the pools of the transaction's Swap logs are counterparties only;
 *   they are never wallets with an event.
 * - liquidity: the pools of the transaction's liquidity Mint / Burn logs (`tx.liquidityPools`) are
 *   counterparties only too, and a wallet with a leg of an LP token of one of them (a V2 pool is its own LP
 *   token), or to or from one of them that did not also swap in the transaction (a V3 pool: positions are
 *   NFTs), is `liquidity`: it added or removed liquidity (tx-events.ts gives it no event).
 *
 * Each wallet also keeps which assets it sent and received gross (to tell a circular route from a plain
 * transfer) and how many raw legs touched it (`repeat_count`).
 *
 * Layout: a transaction touches few wallets and a wallet few assets, so both are short arrays scanned in
 * order (a Map index takes over past INDEX_AFTER wallets: a token airdrop pays thousands in one transaction).
 * One object per wallet and one per (wallet, asset), not per-wallet Maps and Sets, which would be most of
 * the collapse's garbage (test/unit/whale-net-deltas-equivalence.test.ts checks the events against a
 * Map-based reference).
 */
import { NATIVE, type RawTx } from './tx-legs.js'

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

/** wallets scanned in order before a Map index is built */
const INDEX_AFTER = 16

/**
 * The empty lists a transaction's wallets start with, shared and never written (replaced at the first entry:
 * an empty `[]` gets room for 16 entries at its first push, ~150 bytes of garbage each; a one-element literal
 * room for exactly one). Not frozen: a frozen array is another elements kind, and `for...of` over it
 * allocated an iterator per loop.
 */
const NO_WALLETS: WalletDelta[] = []
const NO_ASSETS: AssetDelta[] = []

/** one wallet's movements of one asset in one transaction */
export interface AssetDelta {
  readonly asset: string
  /** net raw amount (received − sent) */
  net: bigint
  /** gross raw amount sent (0n when nothing was) */
  sent: bigint
  /** order of the wallet's first send of this asset among its assets (-1: never sent) */
  sentOrder: number
  /** the wallet received some of it */
  received: boolean
  /** the counterparty that moved the most of it the other way (largest single leg, the first on a tie) */
  counterparty: string
  counterpartyAmount: bigint
}

export interface WalletDelta {
  readonly wallet: string
  /**
   * every asset the wallet moved, in order of first movement (zero nets included: see `netCount`); starts as
   * the shared NO_ASSETS, replaced by a one-element literal at the first asset (see `add`); read-only to
   * callers, so nothing outside `add` can push into the shared empty list
   */
  assets: readonly AssetDelta[]
  /** assets whose net is not zero, once `netDeltas` returns */
  netCount: number
  /** assets sent so far (the next sentOrder) */
  sends: number
  /** raw legs that touched the wallet */
  legs: number
  /** lowest log index among those legs (-1 when the transaction's value is one) */
  firstLog: number
  /** a leg moved an LP token or went to or from a pool whose liquidity the transaction added or removed */
  liquidity: boolean
}

class Wallets {
  list: WalletDelta[] = NO_WALLETS
  private index: Map<string, WalletDelta> | null = null

  find(wallet: string): WalletDelta | undefined {
    if (this.index !== null) return this.index.get(wallet)
    for (const d of this.list) if (d.wallet === wallet) return d
    return undefined
  }

  get(wallet: string): WalletDelta {
    let d = this.find(wallet)
    if (d === undefined) {
      d = {
        wallet,
        assets: NO_ASSETS,
        netCount: 0,
        sends: 0,
        legs: 0,
        firstLog: Number.MAX_SAFE_INTEGER,
        liquidity: false
      }
      if (this.list.length === 0) this.list = [d]
      else this.list.push(d)
      if (this.index !== null) this.index.set(wallet, d)
      else if (this.list.length > INDEX_AFTER) this.index = new Map(this.list.map((w) => [w.wallet, w]))
    }
    return d
  }
}

export function assetOf(d: WalletDelta, asset: string): AssetDelta | undefined {
  for (const a of d.assets) if (a.asset === asset) return a
  return undefined
}

/** `abs` (> 0n) of `token` sent by `d` to `other` (`sent`) or received from it */
function add(d: WalletDelta, token: string, abs: bigint, sent: boolean, other: string, logIndex: number): void {
  let a = assetOf(d, token)
  if (a === undefined) {
    a = {
      asset: token,
      net: 0n,
      sent: 0n,
      sentOrder: -1,
      received: false,
      counterparty: other,
      counterpartyAmount: abs
    }
    if (d.assets.length === 0) d.assets = [a]
    else (d.assets as AssetDelta[]).push(a) // not empty: the wallet's own list
  } else if (abs > a.counterpartyAmount) {
    a.counterparty = other
    a.counterpartyAmount = abs
  }
  if (sent) {
    a.net -= abs
    if (a.sentOrder < 0) a.sentOrder = d.sends++
    a.sent += abs
  } else {
    a.net += abs
    a.received = true
  }
  d.legs += 1
  if (logIndex < d.firstLog) d.firstLog = logIndex
}

/**
 * `address` emitted one of the transaction's Swap logs or liquidity logs (a few per transaction: a scan, not a
 * Set)
 */
function isPool(swaps: RawTx['swaps'], liquidity: readonly string[] | undefined, address: string): boolean {
  for (const s of swaps) if (s.pool === address) return true
  return liquidity !== undefined && liquidity.includes(address)
}

/**
 * `leg` moved an LP token of a pool whose liquidity the transaction moved (a V2 pool is its own LP token), or
 * went to or from such a pool that did not also swap in the transaction: a fee-on-transfer token that adds
 * its fees as liquidity while a holder sells ("swap and liquify") makes its pool swap and mint in the holder's
 * transaction, and the holder's sale stays a sale; its LP tokens go to the token contract or its owner
 */
function isLiquidityLeg(swaps: RawTx['swaps'], liquidity: readonly string[], leg: RawTx['legs'][number]): boolean {
  if (liquidity.includes(leg.token)) return true
  if (liquidity.includes(leg.from) && !isPool(swaps, undefined, leg.from)) return true
  return liquidity.includes(leg.to) && !isPool(swaps, undefined, leg.to)
}

/**
 * Net deltas of every wallet of one transaction (excluding the zero address and swap pools), in order of
 * first appearance.
 */
export function netDeltas(tx: RawTx): WalletDelta[] {
  const swaps = tx.swaps
  const liquidity = tx.liquidityPools
  const wallets = new Wallets()
  let withdrawals: Array<{ holder: string; amount: bigint; logIndex: number }> | null = null
  // coin the sender paid the wrapped-native contract for its own Deposit: a wrap, not a transfer
  let wrapped = 0n
  for (const leg of tx.legs) if (leg.kind === 'deposit' && leg.to === tx.sender) wrapped += leg.amount
  for (const leg of tx.legs) {
    let amount = leg.amount
    if (leg.kind === 'value' && wrapped > 0n && leg.from === tx.sender && leg.to === tx.wrappedNative) {
      amount = leg.amount - wrapped
      if (amount <= 0n) continue
    }
    if (amount <= 0n) continue
    if (leg.kind === 'deposit') continue
    if (leg.kind === 'withdrawal') {
      if (leg.from !== tx.sender) (withdrawals ??= []).push({ holder: leg.from, amount, logIndex: leg.logIndex })
      continue
    }
    if (leg.from === leg.to) continue
    const lp = liquidity !== undefined && isLiquidityLeg(swaps, liquidity, leg)
    if (leg.from !== ZERO_ADDRESS && !isPool(swaps, liquidity, leg.from)) {
      const d = wallets.get(leg.from)
      add(d, leg.token, amount, true, leg.to, leg.logIndex)
      if (lp) d.liquidity = true
    }
    if (leg.to !== ZERO_ADDRESS && !isPool(swaps, liquidity, leg.to)) {
      const d = wallets.get(leg.to)
      add(d, leg.token, amount, false, leg.from, leg.logIndex)
      if (lp) d.liquidity = true
    }
  }
  if (withdrawals !== null) {
    for (const w of withdrawals) {
      const holder = wallets.find(w.holder)
      const held = holder === undefined ? 0n : (assetOf(holder, NATIVE)?.net ?? 0n)
      if (holder === undefined || held <= 0n) continue
      const moved = held < w.amount ? held : w.amount
      add(holder, NATIVE, moved, true, tx.sender, w.logIndex)
      add(wallets.get(tx.sender), NATIVE, moved, false, w.holder, w.logIndex)
    }
  }
  for (const d of wallets.list) {
    let n = 0
    for (const a of d.assets) if (a.net !== 0n) n++
    d.netCount = n
  }
  // the shared empty list stays inside: a caller's push must not reach the next transaction's
  return wallets.list === NO_WALLETS ? [] : wallets.list
}
