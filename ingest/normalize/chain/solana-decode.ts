/**
 * @module
 * A Solana transaction (getTransaction, encoding jsonParsed, maxSupportedTransactionVersion 0) → RawTx
 * (engine/whales/tx-legs.ts). Solana reports balances before and after, not transfer logs, so the legs are
 * built from the deltas (reference: evm-node-intelligence-and-whales.md 3.6):
 *
 * - tokens: per (owner, mint) of `meta.preTokenBalances` / `postTokenBalances`, post − pre in raw units; the
 *   wrapped SOL mint is the coin (NATIVE), like WETH on EVM chains;
 * - SOL: per account key, postBalances − preBalances, with the fee added back for the fee payer (account 0)
 *   so the fee is not a transfer; token accounts themselves are skipped (their lamports are rent and wrapped
 *   SOL, already counted through their owner's token balance);
 * - per asset, senders are matched to receivers largest first, which yields one leg per pair; a Jupiter-style
 *   multi-hop route leaves the trader with one negative and one positive asset, so it collapses by
 *   construction;
 * - hops: instructions (inner ones included) of the AMM programs in SOLANA_AMM_PROGRAMS.
 * A failed transaction (meta.err set) moves nothing but its fee: no legs.
 */
import { NATIVE, type RawLeg, type RawSwap, type RawTx } from '../../../engine/whales/tx-legs.js'

/** the wrapped SOL mint: one asset with SOL */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112'

/** AMM programs whose instructions are hops of a route (public program ids) */
export const SOLANA_AMM_PROGRAMS: ReadonlySet<string> = new Set([
  '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8', // Raydium AMM v4
  'CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK', // Raydium CLMM
  'whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc', // Orca Whirlpool
  'LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo', // Meteora DLMM
  'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA' // Pump.fun AMM
])

interface TokenBalance {
  readonly accountIndex: number
  readonly mint: string
  readonly owner?: string
  readonly uiTokenAmount: { readonly amount: string }
}

interface ParsedInstruction {
  readonly programId?: string
}

/** The fields of a jsonParsed getTransaction answer the decoder reads. */
export interface SolanaTransaction {
  readonly slot: number
  /** epoch seconds, or null when the node does not know it */
  readonly blockTime: number | null
  readonly meta: {
    readonly err: unknown
    readonly fee: number
    readonly preBalances: readonly number[]
    readonly postBalances: readonly number[]
    readonly preTokenBalances?: readonly TokenBalance[] | null
    readonly postTokenBalances?: readonly TokenBalance[] | null
    readonly innerInstructions?: ReadonlyArray<{ readonly instructions: readonly ParsedInstruction[] }> | null
  } | null
  readonly transaction: {
    readonly signatures: readonly string[]
    readonly message: {
      readonly accountKeys: ReadonlyArray<{ readonly pubkey: string } | string>
      readonly instructions: readonly ParsedInstruction[]
    }
  }
}

const keyOf = (k: { readonly pubkey: string } | string): string => (typeof k === 'string' ? k : k.pubkey)

/** per asset, owner → raw delta */
type Deltas = Map<string, Map<string, bigint>>

function addDelta(d: Deltas, asset: string, owner: string, v: bigint): void {
  if (v === 0n) return
  let m = d.get(asset)
  if (m === undefined) d.set(asset, (m = new Map()))
  m.set(owner, (m.get(owner) ?? 0n) + v)
}

/** legs pairing each asset's senders with its receivers, largest first */
function legsOf(d: Deltas): RawLeg[] {
  const legs: RawLeg[] = []
  let index = 0
  for (const [asset, owners] of d) {
    const out = [...owners].filter(([, v]) => v < 0n).map(([o, v]) => ({ o, left: -v }))
    const inn = [...owners].filter(([, v]) => v > 0n).map(([o, v]) => ({ o, left: v }))
    out.sort((a, b) => (b.left > a.left ? 1 : b.left < a.left ? -1 : 0))
    inn.sort((a, b) => (b.left > a.left ? 1 : b.left < a.left ? -1 : 0))
    let i = 0
    let j = 0
    while (i < out.length || j < inn.length) {
      const s = out[i]
      const r = inn[j]
      // an imbalance (minted, burnt, or lost to rent) moves to or from nobody: the zero address stands in
      const amount = s && r ? (s.left < r.left ? s.left : r.left) : (s?.left ?? r!.left)
      legs.push({
        kind: 'transfer',
        token: asset,
        from: s?.o ?? '0x0000000000000000000000000000000000000000',
        to: r?.o ?? '0x0000000000000000000000000000000000000000',
        amount,
        logIndex: index++
      })
      if (s) s.left -= amount
      if (r) r.left -= amount
      if (s && s.left === 0n) i++
      if (r && r.left === 0n) j++
    }
  }
  return legs
}

export function decodeSolanaTx(tx: SolanaTransaction): RawTx {
  const keys = tx.transaction.message.accountKeys.map(keyOf)
  const sender = keys[0] ?? ''
  const base = {
    chain: 'solana',
    txHash: tx.transaction.signatures[0] ?? '',
    blockNumber: tx.slot,
    blockHash: String(tx.slot),
    ts: (tx.blockTime ?? 0) * 1000,
    sender,
    wrappedNative: WSOL_MINT
  }
  const meta = tx.meta
  // a failed transaction moves nothing but its fee; a missing `err` (a node that leaves it out) is a success
  if (meta === null || meta.err != null) return { ...base, legs: [], swaps: [] }
  // balances that cannot give every account's delta would invent flows (a missing post balance reads as the
  // whole balance sent away): such an answer is malformed, thrown for the source to count and skip
  const pre: unknown = meta.preBalances
  const post: unknown = meta.postBalances
  if (!Array.isArray(pre) || !Array.isArray(post) || pre.length !== keys.length || post.length !== keys.length) {
    throw new Error('malformed transaction: pre and post balances do not cover every account')
  }
  if ((meta.preTokenBalances == null) !== (meta.postTokenBalances == null)) {
    throw new Error('malformed transaction: token balances before without after, or after without before')
  }
  if (typeof meta.fee !== 'number') throw new Error('malformed transaction: no fee')
  const d: Deltas = new Map()
  const tokenAccounts = new Set<number>()
  const balances = new Map<string, { owner: string; mint: string; pre: bigint; post: bigint }>()
  for (const [list, side] of [
    [meta.preTokenBalances ?? [], 'pre'],
    [meta.postTokenBalances ?? [], 'post']
  ] as const) {
    for (const b of list) {
      tokenAccounts.add(b.accountIndex)
      const owner = b.owner ?? keys[b.accountIndex] ?? ''
      const key = `${b.accountIndex}:${b.mint}`
      const entry = balances.get(key) ?? { owner, mint: b.mint, pre: 0n, post: 0n }
      // raw token units as decimal digits; anything else ("", null, "1.5") would read as a wrong amount
      const units: unknown = b.uiTokenAmount?.amount
      if (typeof units !== 'string' || !/^\d+$/.test(units)) {
        throw new Error('malformed transaction: a token balance without an amount in units')
      }
      entry[side] = BigInt(units)
      balances.set(key, entry)
    }
  }
  for (const b of balances.values()) addDelta(d, b.mint === WSOL_MINT ? NATIVE : b.mint, b.owner, b.post - b.pre)
  for (let i = 0; i < keys.length; i++) {
    if (tokenAccounts.has(i)) continue
    let v = BigInt(meta.postBalances[i] ?? 0) - BigInt(meta.preBalances[i] ?? 0)
    if (i === 0) v += BigInt(meta.fee)
    addDelta(d, NATIVE, keys[i]!, v)
  }
  const swaps: RawSwap[] = []
  const instructions = [
    ...tx.transaction.message.instructions,
    ...(meta.innerInstructions ?? []).flatMap((x) => x.instructions)
  ]
  for (const ins of instructions) {
    if (ins.programId !== undefined && SOLANA_AMM_PROGRAMS.has(ins.programId)) {
      swaps.push({ pool: ins.programId, logIndex: swaps.length })
    }
  }
  return { ...base, legs: legsOf(d), swaps }
}
