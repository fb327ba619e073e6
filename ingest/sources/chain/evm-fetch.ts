/**
 * @module
 * Reads one block range of an EVM chain into decoded transactions (RawTx), through viem on the shared
 * ChainClient (rate limit, failover, counters). Three steps, so a chain-wide firehose is never pulled:
 *
 * 1. `eth_getLogs` over the tracked tokens (watch list + the wrapped native) with the topic OR-list
 *    Transfer | Deposit | Withdrawal, in spans the RangeChunker halves on size errors and grows back.
 * 2. Candidate transactions: those with a tracked leg worth at least `minUsd / 2` (a leg of a whale route
 *    carries about the route's size), one touching a watched wallet, or one with an unpriced tracked leg;
 *    plus, when the watch list has wallets on the chain, every transaction of the range's blocks that sends
 *    coin to or from one of them (`eth_getBlockByNumber` with transactions: plain coin transfers have no log).
 * 3. Per candidate: its receipt (all logs: Swap hops, untracked intermediate tokens) and the transaction
 *    (sender, recipient, value); per block with a candidate, its header (time, hash).
 * Counters: RPC calls by method, logs read, malformed logs.
 */
import type { RawTx } from '../../../engine/whales/tx-legs.js'
import { NATIVE } from '../../../engine/whales/tx-legs.js'
import type { TokenInfo, EventPricer } from '../../../engine/whales/tx-events.js'
import { decodeLog, decodeTx, type EvmLog, type EvmTx } from '../../normalize/chain/evm-decode.js'
import type { EvmRpc } from './evm-rpc.js'
import { TOKEN_TOPICS } from '../../normalize/chain/evm-topics.js'
import { RangeChunker } from './range-chunker.js'

/** receipts fetched at once (the client's rate limit still applies) */
const RECEIPT_CONCURRENCY = 8

export interface FetchContext {
  readonly chain: string
  readonly rpc: EvmRpc
  /** lower-case */
  readonly wrappedNative: string
  /** tracked token contracts (lower-case), the wrapped native included */
  readonly tokens: readonly string[]
  readonly token: (address: string) => TokenInfo | undefined
  /** watched wallets on this chain (lower-case) */
  readonly wallets: ReadonlySet<string>
  readonly pricer: EventPricer
  readonly minUsd: number
}

export interface FetchCounters {
  rpc_calls: number
  logs: number
  malformed_logs: number
  receipts: number
  blocks: number
}

/**
 * runs `fn` over `items` with at most `limit` in flight, results in input order. After the first failure no
 * further item starts (the calls in flight end on their own) and the failure is thrown once they have: a failed
 * range is read again from its start, so fetching the rest would only spend the node's rate budget.
 */
export async function pooled<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async (): Promise<void> => {
    while (next < items.length && !failed) {
      const i = next++
      try {
        out[i] = await fn(items[i]!)
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker))
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (rejected !== undefined) throw rejected.reason
  return out
}

/** USD of one tracked leg at `ts`, or null when unpriced */
function legUsd(ctx: CandidateContext, token: string, amount: bigint, ts: number): number | null {
  const info = ctx.token(token)
  if (info === undefined) return null
  const units = Number(amount) / 10 ** info.decimals
  if (info.priceAsset === 'USD') return units
  const p = ctx.pricer.price(info.priceAsset, ts)
  return p === null ? null : units * p.usd
}

export type CandidateContext = Pick<FetchContext, 'wrappedNative' | 'token' | 'wallets' | 'pricer' | 'minUsd'>

/**
 * Step 2's log side: the transactions among `logs` (eth_getLogs over the tracked tokens) whose receipts are
 * worth reading: a tracked leg worth at least `minUsd / 2` at `approxTs`, or unpriced, or touching a watched
 * wallet. tx hash (lower-case) → block number, in first-seen order. Removed logs and logs without a
 * transaction are skipped; a malformed one (evm-decode.ts, or without a block number) calls `onMalformed`.
 * Also run by the decode benchmark's realistic mix (bench/chain/decode-variant.ts).
 */
export function candidatesOf(
  logs: readonly EvmLog[],
  ctx: CandidateContext,
  approxTs: number,
  onMalformed: () => void
): Map<string, number> {
  const candidates = new Map<string, number>()
  const half = ctx.minUsd / 2
  for (const log of logs) {
    if (log.transactionHash === null || log.removed) continue
    if (log.blockNumber === null) {
      onMalformed() // a mined log always names its block: without it, the transaction has no block to read
      continue
    }
    const d = decodeLog(log, ctx.wrappedNative, onMalformed)
    if (d === null || !('leg' in d)) continue
    const { leg } = d
    const usd = legUsd(ctx, leg.token, leg.amount, approxTs)
    if (usd === null || usd >= half || ctx.wallets.has(leg.from) || ctx.wallets.has(leg.to)) {
      candidates.set(log.transactionHash.toLowerCase(), Number(log.blockNumber))
    }
  }
  return candidates
}

export class EvmRangeFetcher {
  readonly counters: FetchCounters = { rpc_calls: 0, logs: 0, malformed_logs: 0, receipts: 0, blocks: 0 }

  constructor(
    private readonly ctx: FetchContext,
    readonly chunker: RangeChunker
  ) {}

  async header(n: number): Promise<{ number: number; hash: string; parentHash: string; ts: number }> {
    this.counters.rpc_calls += 1
    const b = await this.ctx.rpc.block(n, false)
    this.counters.blocks += 1
    return { number: n, hash: b.hash, parentHash: b.parentHash, ts: b.timestamp * 1000 }
  }

  /** Decoded transactions of blocks [from, to] worth looking at, in block then transaction order. */
  async range(from: number, to: number, approxTs: number): Promise<RawTx[]> {
    const ctx = this.ctx
    const logs: EvmLog[] = []
    if (ctx.tokens.length > 0) {
      await this.chunker.run(
        from,
        to,
        (a, b) => {
          this.counters.rpc_calls += 1
          return ctx.rpc.logs(a, b, ctx.tokens, TOKEN_TOPICS)
        },
        (found) => {
          logs.push(...found)
        }
      )
    }
    this.counters.logs += logs.length
    const candidates = candidatesOf(logs, ctx, approxTs, () => (this.counters.malformed_logs += 1))
    const headers = new Map<number, { hash: string; ts: number }>()
    const txs = new Map<string, EvmTx>()
    if (ctx.wallets.size > 0) {
      for (let n = from; n <= to; n++) {
        this.counters.rpc_calls += 1
        const block = await ctx.rpc.block(n, true)
        this.counters.blocks += 1
        headers.set(n, { hash: block.hash, ts: block.timestamp * 1000 })
        for (const t of block.transactions) {
          txs.set(t.hash, t)
          if (t.value > 0n && (ctx.wallets.has(t.from) || (t.to !== null && ctx.wallets.has(t.to)))) {
            candidates.set(t.hash, n)
          }
        }
      }
    }
    const list = [...candidates].sort((a, b) => a[1] - b[1])
    for (const [, n] of list) if (!headers.has(n)) headers.set(n, await this.header(n))
    const decoded = await pooled(list, RECEIPT_CONCURRENCY, async ([hash, n]) => {
      this.counters.rpc_calls += 1
      const receipt = await ctx.rpc.receipt(hash)
      this.counters.receipts += 1
      let tx = txs.get(hash)
      if (tx === undefined) {
        this.counters.rpc_calls += 1
        tx = await ctx.rpc.transaction(hash)
      }
      const header = headers.get(n)!
      return {
        index: receipt.transactionIndex,
        raw: decodeTx(
          { chain: ctx.chain, tx, blockNumber: n, blockHash: header.hash, ts: header.ts, logs: receipt.logs },
          ctx.wrappedNative,
          () => (this.counters.malformed_logs += 1)
        )
      }
    })
    decoded.sort((a, b) => a.raw.blockNumber - b.raw.blockNumber || a.index - b.index)
    return decoded.map((d) => d.raw)
  }
}
