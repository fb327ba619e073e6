/**
 * @module
 * What the honeypot checks of one chain reuse (engine/nodeintel/honeypot.ts): the node's gas price, whether
 * it honours state overrides and runs eth_simulateV1 (each asked once and kept), and each token's wallet
 * plan (what its buy delivered last time: engine/nodeintel/wallet-sim.ts).
 */
import type { Address } from 'viem'
import type { ChainClient } from '../chain/chain-client.js'
import { supportsSimulateV1, supportsStateOverride } from './probe.js'
import type { WalletPlan } from './wallet-sim.js'

/** How long the node's gas price is reused, ms (the probe only needs a realistic one). */
const GAS_PRICE_TTL_MS = 10_000
/** How long a node's answer to "do you honour state overrides / eth_simulateV1?" is trusted, ms. */
const OVERRIDE_CHECK_TTL_MS = 600_000
/** Wallet plans kept per chain at most (the oldest goes first). */
const MAX_PLANS = 10_000

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

  constructor(private readonly client: ChainClient) {}

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
