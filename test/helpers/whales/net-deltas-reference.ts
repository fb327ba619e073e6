/**
 * @module
 * REFERENCE COPY (test only) of engine/whales/net-deltas.ts as it was before its array layout (commit 2a859ef),
 * for test/unit/whale-net-deltas-equivalence.test.ts. Per-transaction net balance changes per wallet and asset (reference: evm-node-intelligence-and-whales.md
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
 *
 * Each wallet also keeps which assets it sent and received gross (to tell a circular route from a plain
 * transfer) and how many raw legs touched it (`repeat_count`).
 */
import { NATIVE, type RawTx } from '../../../engine/whales/tx-legs.js'

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

export interface WalletDelta {
  readonly wallet: string
  /** asset → net raw amount (non-zero entries only once `netDeltas` returns) */
  readonly net: Map<string, bigint>
  /** assets the wallet sent, gross raw amount per asset */
  readonly sent: Map<string, bigint>
  /** assets the wallet received (gross) */
  readonly received: Set<string>
  /** raw legs that touched the wallet */
  legs: number
  /** lowest log index among those legs (-1 when the transaction's value is one) */
  firstLog: number
  /** per asset, the counterparty that moved the most of it the other way (largest single leg) */
  readonly counterparty: Map<string, { address: string; amount: bigint }>
}

function walletOf(map: Map<string, WalletDelta>, wallet: string): WalletDelta {
  let d = map.get(wallet)
  if (d === undefined) {
    d = {
      wallet,
      net: new Map(),
      sent: new Map(),
      received: new Set(),
      legs: 0,
      firstLog: Number.MAX_SAFE_INTEGER,
      counterparty: new Map()
    }
    map.set(wallet, d)
  }
  return d
}

function add(d: WalletDelta, token: string, amount: bigint, other: string, logIndex: number): void {
  d.net.set(token, (d.net.get(token) ?? 0n) + amount)
  if (amount < 0n) d.sent.set(token, (d.sent.get(token) ?? 0n) - amount)
  else d.received.add(token)
  d.legs += 1
  if (logIndex < d.firstLog) d.firstLog = logIndex
  const abs = amount < 0n ? -amount : amount
  const cp = d.counterparty.get(token)
  if (cp === undefined || abs > cp.amount) d.counterparty.set(token, { address: other, amount: abs })
}

/**
 * Net deltas of every wallet of one transaction (excluding the zero address and swap pools), in order of
 * first appearance. Entries whose net is zero are removed from `net` (the gross sets keep them).
 */
export function netDeltas(tx: RawTx): WalletDelta[] {
  const pools = new Set(tx.swaps.map((s) => s.pool))
  const map = new Map<string, WalletDelta>()
  const withdrawals: Array<{ holder: string; amount: bigint; logIndex: number }> = []
  // coin the sender paid the wrapped-native contract for its own Deposit: a wrap, not a transfer
  let wrapped = 0n
  for (const leg of tx.legs) if (leg.kind === 'deposit' && leg.to === tx.sender) wrapped += leg.amount
  for (const raw of tx.legs) {
    let leg = raw
    if (leg.kind === 'value' && wrapped > 0n && leg.from === tx.sender && leg.to === tx.wrappedNative) {
      const rest = leg.amount - wrapped
      if (rest <= 0n) continue
      leg = { ...leg, amount: rest }
    }
    if (leg.amount <= 0n) continue
    if (leg.kind === 'deposit') continue
    if (leg.kind === 'withdrawal') {
      if (leg.from !== tx.sender) withdrawals.push({ holder: leg.from, amount: leg.amount, logIndex: leg.logIndex })
      continue
    }
    if (leg.from === leg.to) continue
    if (leg.from !== ZERO_ADDRESS && !pools.has(leg.from))
      add(walletOf(map, leg.from), leg.token, -leg.amount, leg.to, leg.logIndex)
    if (leg.to !== ZERO_ADDRESS && !pools.has(leg.to))
      add(walletOf(map, leg.to), leg.token, leg.amount, leg.from, leg.logIndex)
  }
  for (const w of withdrawals) {
    const holder = map.get(w.holder)
    const held = holder?.net.get(NATIVE) ?? 0n
    if (holder === undefined || held <= 0n) continue
    const moved = held < w.amount ? held : w.amount
    add(holder, NATIVE, -moved, tx.sender, w.logIndex)
    add(walletOf(map, tx.sender), NATIVE, moved, w.holder, w.logIndex)
  }
  for (const d of map.values()) {
    for (const [token, v] of d.net) if (v === 0n) d.net.delete(token)
  }
  return [...map.values()]
}
