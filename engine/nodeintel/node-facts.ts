/**
 * @module
 * What the honeypot checks of one chain reuse (engine/nodeintel/honeypot.ts): the node's gas price, whether
 * it honours state overrides and runs eth_simulateV1 (each asked once and kept), the head block the wallet
 * simulation builds on (kept for one block time), and each token's wallet plan (what its buy delivered last
 * time: engine/nodeintel/wallet-sim.ts).
 */
import type { Address, Hex } from 'viem'
import type { ChainClient } from '../chain/chain-client.js'
import { Semaphore } from '../runtime/semaphore.js'
import { supportsSimulateV1, supportsStateOverride } from './probe.js'
import type { WalletPlan } from './wallet-sim.js'

/** the fields of a JSON-RPC block this reads (quantities as hex; `number` null for a pending block) */
interface RawHead {
  readonly number: Hex | null
  readonly timestamp: Hex
}

/** How long the node's gas price is reused, ms (the probe only needs a realistic one). */
const GAS_PRICE_TTL_MS = 10_000
/** How long a node's answer to "do you honour state overrides / eth_simulateV1?" is trusted, ms. */
const OVERRIDE_CHECK_TTL_MS = 600_000
/** Wallet plans kept per chain at most (the oldest goes first). */
const MAX_PLANS = 10_000
/**
 * Wallet simulations sent to one chain's node at once. Each is heavy for the node (about 1.5 ms of anvil's
 * CPU, far more than a plain call): a burst of checks sent all at once queues at the node, where the wait
 * counts against each request's timeout (`<ENV>_RPC_TIMEOUT_MS`); beyond this many they wait here instead,
 * before the timeout starts.
 */
export const SIMULATIONS_AT_ONCE = 8
/** Simulations waiting for one of those slots at most; beyond, a check answers 503 chain_unavailable. */
export const SIMULATIONS_WAITING = 1_000

/** The head block a wallet simulation builds on. */
export interface Head {
  readonly number: bigint
  /** seconds */
  readonly timestamp: bigint
}

/**
 * Per-chain facts the checks reuse: the gas price, whether the node honours state overrides and runs
 * eth_simulateV1, and each token's wallet plan (what its buy delivered last time).
 */
export class NodeFacts {
  private gas: { value: bigint; at: number } | null = null
  private refreshing: Promise<bigint> | null = null
  private overrides: { value: boolean; at: number } | null = null
  private simulate: { value: boolean; at: number } | null = null
  private readonly plans = new Map<string, WalletPlan>()
  /** the node's simulation slots (SIMULATIONS_AT_ONCE, SIMULATIONS_WAITING) */
  readonly simulations = new Semaphore(SIMULATIONS_AT_ONCE, SIMULATIONS_WAITING)
  private headRead: { value: Head; at: number } | null = null
  private headReading: Promise<Head | null> | null = null
  /**
   * How long a head read is reused, ms: the chain's block time (a head read that recently is at most about
   * one block behind); from half of it on, the next use refreshes it in the background.
   */
  private readonly headTtlMs: number

  constructor(private readonly client: ChainClient) {
    this.headTtlMs = client.spec.blockTimeMs
  }

  /**
   * The head block (number and time), read at most once per block time, never below `minBlock` (a re-check
   * after a transaction in block N simulates on block N or later); null when the node's head has no number.
   */
  async head(minBlock = 0n): Promise<Head | null> {
    const kept = this.headKept(minBlock)
    if (kept !== undefined) return kept
    const read = await this.readHead()
    // a read already in flight may have started before block minBlock was known: read once more
    return read !== null && read.number < minBlock ? this.readHead() : read
  }

  /**
   * The head kept when it was read within the block time and is not below `minBlock` (from half the block
   * time on, a read in the background refreshes it), else undefined: `head` reads it. No promise.
   */
  headKept(minBlock = 0n): Head | undefined {
    const h = this.headRead
    if (h === null) return undefined
    const age = Date.now() - h.at
    if (age >= this.headTtlMs || h.value.number < minBlock) return undefined
    if (age >= this.headTtlMs / 2) this.readHead().catch(() => undefined)
    return h.value
  }

  /** the head read now (not the one kept), kept for the next checks */
  latestHead(): Promise<Head | null> {
    return this.readHead()
  }

  /** one eth_getBlockByNumber('latest') at a time, through the lean client (no block formatting) */
  private readHead(): Promise<Head | null> {
    this.headReading ??= this.client
      .request(
        'honeypot_head',
        (_c, raw) => raw.call('eth_getBlockByNumber', ['latest', false]) as Promise<RawHead | null>,
        { batch: false }
      )
      .then((b) => {
        if (!b?.number) return null
        const value = { number: BigInt(b.number), timestamp: BigInt(b.timestamp) }
        this.headRead = { value, at: Date.now() }
        return value
      })
      .finally(() => (this.headReading = null))
    return this.headReading
  }

  /** the gas price read within GAS_PRICE_TTL_MS, else undefined (`gasPrice` reads it). No promise. */
  gasPriceKept(): bigint | undefined {
    return this.gas && Date.now() - this.gas.at < GAS_PRICE_TTL_MS ? this.gas.value : undefined
  }

  /** the node's gas price (cached; refreshed in the background when stale) */
  async gasPrice(): Promise<bigint> {
    const now = Date.now()
    if (this.gas && now - this.gas.at < GAS_PRICE_TTL_MS) return this.gas.value
    this.refreshing ??= this.client
      .request('eth_gasPrice', (c) => c.getGasPrice())
      .then((value) => {
        this.gas = { value, at: Date.now() }
        return value
      })
      .finally(() => (this.refreshing = null))
    if (this.gas) {
      this.refreshing.catch(() => undefined)
      return this.gas.value
    }
    return this.refreshing
  }

  async overridesSupported(): Promise<boolean> {
    if (this.overrides && Date.now() - this.overrides.at < OVERRIDE_CHECK_TTL_MS) return this.overrides.value
    const value = await this.client.request('state_override_check', (c) => supportsStateOverride(c))
    this.overrides = { value, at: Date.now() }
    return value
  }

  /** last known answer without asking (health) */
  get overridesKnown(): boolean | null {
    return this.overrides?.value ?? null
  }

  /** the kept answer of `simulateV1Supported` while it holds, else undefined. No promise. */
  simulateV1Kept(): boolean | undefined {
    return this.simulate && Date.now() - this.simulate.at < OVERRIDE_CHECK_TTL_MS ? this.simulate.value : undefined
  }

  /** whether the node runs eth_simulateV1 with state overrides (asked once, kept OVERRIDE_CHECK_TTL_MS) */
  async simulateV1Supported(): Promise<boolean> {
    if (this.simulate && Date.now() - this.simulate.at < OVERRIDE_CHECK_TTL_MS) return this.simulate.value
    const value = await this.client.request('simulate_v1_check', (c) => supportsSimulateV1(c))
    this.simulate = { value, at: Date.now() }
    return value
  }

  /** a wallet simulation failed: the next check asks the node again */
  simulateV1Failed(): void {
    this.simulate = null
  }

  plan(token: Address): WalletPlan | null {
    return this.plans.get(token) ?? null
  }

  setPlan(token: Address, plan: WalletPlan | null): void {
    this.plans.delete(token)
    if (!plan) return
    if (this.plans.size >= MAX_PLANS) this.plans.delete(this.plans.keys().next().value!)
    this.plans.set(token, plan)
  }
}
