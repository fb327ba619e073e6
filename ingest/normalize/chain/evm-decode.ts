/**
 * @module
 * EVM logs and transactions → the raw legs of engine/whales/tx-legs.ts. Pure; no RPC. Addresses come out
 * lower-case; the chain's wrapped-native token becomes NATIVE (coin and wrapped coin are one asset).
 *
 * - ERC-20 Transfer: exactly 3 topics and 32 bytes of data (an ERC-721 Transfer has 4 topics: skipped).
 * - Deposit(dst, wad) / Withdrawal(src, wad): only when emitted by the wrapped-native contract (other tokens
 *   reuse the names for other meanings).
 * - Swap logs of any family in evm-topics.ts: one hop each, the emitter is the pool.
 * - liquidity Mint / Burn logs (evm-topics.ts LIQUIDITY_TOPICS): the emitter is a pool liquidity was added to
 *   or removed from (`liquidityPools`).
 * - the transaction's own value: a `value` leg from its sender to its recipient (contract creations: none).
 * Malformed logs are counted by the caller and skipped, never thrown: a log the node's answer did not give as one
 * (`malformed`: no topic list, no address), a Transfer, Deposit or Withdrawal whose data is not one 32-byte hex
 * word, or whose address topics are not a 12-zero-byte padded address.
 */
import { NATIVE, type RawLeg, type RawSwap, type RawTx } from '../../../engine/whales/tx-legs.js'
import { DEPOSIT, isLiquidityTopic, isSwapTopic, TRANSFER, WITHDRAWAL } from './evm-topics.js'

/** The fields of an RPC log (viem's `Log`, or a recorded one) the decoder reads. */
export interface EvmLog {
  readonly address: string
  readonly topics: readonly string[]
  readonly data: string
  readonly logIndex: number | null
  readonly transactionHash: string | null
  readonly blockNumber: bigint | null
  readonly blockHash: string | null
  readonly removed?: boolean
  /** the node's answer for this log had no topic list, address or data of the right type: counted, skipped */
  readonly malformed?: boolean
}

/** The fields of a transaction the decoder reads. */
export interface EvmTx {
  readonly hash: string
  readonly from: string
  readonly to: string | null
  readonly value: bigint
}

export type Decoded = { readonly leg: RawLeg } | { readonly swap: RawSwap } | null

/**
 * the address held in a 32-byte topic (its last 20 bytes), lower-case. Lower-cased after the concatenation:
 * toLowerCase returns the joined text as one flat string, where `0x` + a lower-cased slice stayed a two-part
 * string, flattened (a second copy) at its first read and kept with it: 72 instead of ~104 bytes per address,
 * which the read API's details keep for days.
 */
function topicAddress(topic: string): string {
  return `0x${topic.slice(26)}`.toLowerCase()
}

/** a 32-byte word as a node sends it: `0x` and 64 hex digits */
const WORD = /^0x[0-9a-fA-F]{64}$/
/** a topic holding an address: 12 zero bytes, then the 20 bytes of the address */
const ADDRESS_TOPIC = /^0x0{24}[0-9a-fA-F]{40}$/

/** a pool's liquidity Mint or Burn log: the pool (lower-case) */
interface LiquidityLog {
  readonly liquidityPool: string
}

/** One log → a leg, a swap, or null (not ours or malformed: `malformed` says which; liquidity logs: null). */
export function decodeLog(log: EvmLog, wrappedNative: string, onMalformed?: () => void): Decoded {
  const d = legOrSwap(log, wrappedNative, onMalformed)
  return d === null || 'liquidityPool' in d ? null : 'kind' in d ? { leg: d } : { swap: d }
}

/**
 * decodeLog without the wrapper object (decodeTx's per-log path: a RawLeg has `kind`, a LiquidityLog
 * `liquidityPool`, a RawSwap neither)
 */
function legOrSwap(
  log: EvmLog,
  wrappedNative: string,
  onMalformed?: () => void
): RawLeg | RawSwap | LiquidityLog | null {
  if (log.malformed === true) {
    onMalformed?.()
    return null
  }
  const topic0 = log.topics[0]
  const logIndex = log.logIndex ?? 0
  const emitter = log.address.toLowerCase()
  if (topic0 === TRANSFER) {
    if (log.topics.length !== 3) return null // ERC-721 (4 topics) or a non-standard token
    if (!WORD.test(log.data) || !ADDRESS_TOPIC.test(log.topics[1]!) || !ADDRESS_TOPIC.test(log.topics[2]!)) {
      onMalformed?.()
      return null
    }
    return {
      kind: 'transfer',
      token: emitter === wrappedNative ? NATIVE : emitter,
      from: topicAddress(log.topics[1]!),
      to: topicAddress(log.topics[2]!),
      amount: BigInt(log.data),
      logIndex
    }
  }
  if ((topic0 === DEPOSIT || topic0 === WITHDRAWAL) && emitter === wrappedNative) {
    if (log.topics.length !== 2 || !WORD.test(log.data) || !ADDRESS_TOPIC.test(log.topics[1]!)) {
      onMalformed?.()
      return null
    }
    const holder = topicAddress(log.topics[1]!)
    return {
      kind: topic0 === DEPOSIT ? 'deposit' : 'withdrawal',
      token: NATIVE,
      from: holder,
      to: holder,
      amount: BigInt(log.data),
      logIndex
    }
  }
  if (isSwapTopic(topic0)) return { pool: emitter, logIndex }
  if (isLiquidityTopic(topic0)) return { liquidityPool: emitter }
  return null
}

export interface TxInput {
  readonly chain: string
  readonly tx: EvmTx
  readonly blockNumber: number
  readonly blockHash: string
  /** epoch ms */
  readonly ts: number
  /** every log of the transaction (its receipt), any order */
  readonly logs: readonly EvmLog[]
}

const byLogIndex = (a: EvmLog, b: EvmLog): number => (a.logIndex ?? 0) - (b.logIndex ?? 0)

/** `logs` by log index (a receipt's usually are already: then the list itself, no sorted copy) */
function inLogOrder(logs: readonly EvmLog[]): readonly EvmLog[] {
  for (let i = 1; i < logs.length; i++) {
    if ((logs[i - 1]!.logIndex ?? 0) > (logs[i]!.logIndex ?? 0)) return [...logs].sort(byLogIndex)
  }
  return logs
}

/**
 * the swaps of a transaction without Swap logs: one empty list for all, never written (readonly); not frozen,
 * which would make it another elements kind than the lists it stands beside (a `for...of` over a frozen
 * array allocated its iterator)
 */
const NO_SWAPS: readonly RawSwap[] = []

/**
 * One transaction (its receipt's logs and its value) → RawTx. The lists start as one-element literals: an
 * empty `[]` gets room for 16 on its first push (~150 bytes of garbage per list, most transactions have one
 * leg and no swap).
 */
export function decodeTx(input: TxInput, wrappedNative: string, onMalformed?: () => void): RawTx {
  let legs: RawLeg[] | null = null
  let swaps: RawSwap[] | null = null
  let liquidityPools: string[] | null = null
  const sender = input.tx.from.toLowerCase()
  if (input.tx.value > 0n && input.tx.to !== null) {
    legs = [
      {
        kind: 'value',
        token: NATIVE,
        from: sender,
        to: input.tx.to.toLowerCase(),
        amount: input.tx.value,
        logIndex: -1
      }
    ]
  }
  for (const log of inLogOrder(input.logs)) {
    if (log.removed) continue
    const d = legOrSwap(log, wrappedNative, onMalformed)
    if (d === null) continue
    if ('kind' in d) {
      if (legs === null) legs = [d]
      else legs.push(d)
    } else if ('liquidityPool' in d) {
      if (liquidityPools === null) liquidityPools = [d.liquidityPool]
      else if (!liquidityPools.includes(d.liquidityPool)) liquidityPools.push(d.liquidityPool)
    } else if (swaps === null) swaps = [d]
    else swaps.push(d)
  }
  return {
    chain: input.chain,
    txHash: input.tx.hash.toLowerCase(),
    blockNumber: input.blockNumber,
    blockHash: input.blockHash.toLowerCase(),
    ts: input.ts,
    sender,
    wrappedNative,
    legs: legs ?? [],
    swaps: swaps ?? NO_SWAPS,
    ...(liquidityPools === null ? {} : { liquidityPools })
  }
}
