/**
 * @module
 * New pairs of a chain's DEX factory (GET /v1/node/{chain}/new-pairs, push channel `newpairs:<chain>`):
 * `poll()` reads the factory's PairCreated logs since the last block it saw (starting LOOKBACK_BLOCKS
 * back, at most MAX_RANGE blocks per call), keeps the newest `keep` pairs, and checks each pair's token
 * for a honeypot as it appears (a bounded queue, CHECK_CONCURRENCY at once; beyond QUEUE_MAX pending the
 * pair is listed with verdict null and counted in `dropped`). Listeners hear a pair when its verdict is
 * known (or the check failed). The verdict is the one computed when the pair appeared: a pair created
 * before its liquidity was added says `no_liquidity` (ask GET /v1/node/{chain}/honeypot/{token} later).
 */
import { getAddress, parseAbiItem, type Address, type Hex } from 'viem'
import { errorText } from '../chain/rpc-errors.js'
import type { NodeIntelChain } from '../chain/chains.js'
import { Semaphore } from '../runtime/semaphore.js'
import type { ChainIntel } from './service.js'
import type { Verdict } from './verdict.js'
import type { HoneypotMethod } from './honeypot-report.js'

export const PAIR_CREATED = parseAbiItem(
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)'
)
/** blocks read back on the first poll, so pairs created just before the start are listed */
export const LOOKBACK_BLOCKS = 200n
/** largest block range of one eth_getLogs (providers cap ranges; BSC public nodes at a few thousand) */
const MAX_RANGE = 2_000n
/** honeypot checks of new pairs in flight at once, per chain */
const CHECK_CONCURRENCY = 4
/** new pairs waiting for their check at most, per chain */
const QUEUE_MAX = 1_000

export interface NewPair {
  readonly chain: NodeIntelChain
  readonly pair: Address
  readonly token0: Address
  readonly token1: Address
  /** the side that is not the wrapped native (token0 when neither is) */
  readonly token: Address
  readonly paired_with_native: boolean
  readonly block_number: number
  readonly tx_hash: Hex
  readonly log_index: number
  /** ISO 8601 UTC: when this service saw the PairCreated log */
  readonly detected_at: string
  /** null while the check runs, when it was dropped, or when the pair has no wrapped-native side */
  verdict: Verdict | null
  is_honeypot: boolean | null
  method: HoneypotMethod | null
  reasons: string[]
}

export interface NewPairsStats {
  readonly last_block: number | null
  readonly listed: number
  readonly queued: number
  readonly checked: number
  readonly check_errors: number
  readonly dropped: number
}

export class NewPairsWatcher {
  private lastBlock: bigint | null = null
  /** newest last; trimmed to `keep` */
  private pairs: NewPair[] = []
  /** the checks: CHECK_CONCURRENCY run, up to QUEUE_MAX wait (in arrival order) */
  private readonly checks = new Semaphore(CHECK_CONCURRENCY, QUEUE_MAX)
  private readonly listeners = new Set<(p: NewPair) => void>()
  private counts = { checked: 0, check_errors: 0, dropped: 0 }

  constructor(
    private readonly intel: ChainIntel,
    private readonly keep: number
  ) {}

  get chain(): NodeIntelChain {
    return this.intel.chain
  }

  /** hears each pair once its verdict is settled */
  subscribe(fn: (p: NewPair) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /** Reads PairCreated logs up to the head; one call per MAX_RANGE blocks. */
  async poll(): Promise<void> {
    const client = this.intel.client
    const head = await client.request('new_pairs_head', (c) => c.getBlockNumber({ cacheTime: 0 }))
    let from = this.lastBlock === null ? (head > LOOKBACK_BLOCKS ? head - LOOKBACK_BLOCKS : 0n) : this.lastBlock + 1n
    while (from <= head) {
      const to = from + MAX_RANGE - 1n < head ? from + MAX_RANGE - 1n : head
      const logs = await client.request('new_pairs_logs', (c) =>
        c.getLogs({ address: this.intel.dex.factory, event: PAIR_CREATED, fromBlock: from, toBlock: to })
      )
      for (const log of logs) {
        if (log.removed || !log.args.pair || !log.args.token0 || !log.args.token1) continue
        this.add(log.args.token0, log.args.token1, log.args.pair, log.blockNumber, log.transactionHash, log.logIndex)
      }
      this.lastBlock = to
      from = to + 1n
    }
  }

  private add(t0: Address, t1: Address, pair: Address, block: bigint, tx: Hex, index: number): void {
    const wrapped = this.intel.dex.wrappedNative
    const token0 = getAddress(t0)
    const token1 = getAddress(t1)
    const native = token0 === wrapped || token1 === wrapped
    const p: NewPair = {
      chain: this.intel.chain,
      pair: getAddress(pair),
      token0,
      token1,
      token: token0 === wrapped ? token1 : token0,
      paired_with_native: native,
      block_number: Number(block),
      tx_hash: tx,
      log_index: index,
      detected_at: new Date().toISOString(),
      verdict: null,
      is_honeypot: null,
      method: null,
      reasons: []
    }
    this.pairs.push(p)
    if (this.pairs.length > this.keep * 2) this.pairs = this.pairs.slice(-this.keep)
    if (!native) {
      p.reasons.push('not paired with the wrapped native: not simulated')
      this.emit(p)
    } else if (this.checks.waiting >= QUEUE_MAX) {
      this.counts.dropped++
      p.reasons.push('check skipped: too many new pairs at once')
      this.emit(p)
    } else void this.checks.run(() => this.check(p))
  }

  private async check(p: NewPair): Promise<void> {
    try {
      // on the pair's block or a later one (the head a check reuses may be older)
      const { value } = await this.intel.honeypot(p.token, true, BigInt(p.block_number))
      p.verdict = value.verdict
      p.is_honeypot = value.is_honeypot
      p.method = value.method
      p.reasons = [...value.reasons]
      this.counts.checked++
    } catch (err) {
      this.counts.check_errors++
      p.reasons = [`check failed: ${errorText(err)}`]
    }
    this.emit(p)
  }

  private emit(p: NewPair): void {
    for (const fn of this.listeners) fn(p)
  }

  /** newest first */
  list(limit: number, offset: number): { total: number; pairs: NewPair[] } {
    const kept = this.pairs.slice(-this.keep)
    const newest = kept.slice().reverse()
    return { total: newest.length, pairs: newest.slice(offset, offset + limit) }
  }

  stats(): NewPairsStats {
    return {
      last_block: this.lastBlock === null ? null : Number(this.lastBlock),
      listed: Math.min(this.pairs.length, this.keep),
      queued: this.checks.waiting,
      ...this.counts
    }
  }
}
