/**
 * @module
 * Node intelligence for the chains of `/v1/node/{chain}` (bsc, avax) over the shared chain clients
 * (ctx.chains): honeypot checks and risk scores with a per-token cache (NODEINTEL_CACHE_MS, `fresh`
 * bypasses), the chain id verified before the first check (and again a minute after a mismatch), and
 * errors that name what to fix: `chain_not_configured` naming the variable, `chain_mismatch` naming both
 * ids, `chain_unavailable` naming the chain.
 */
import type { Address } from 'viem'
import { ApiError } from '../errors.js'
import type { ChainClient } from '../chain/chain-client.js'
import type { ChainClientSet } from '../chain/chain-client-set.js'
import { NODE_INTEL_CHAINS, nodeIntelChain, type NodeIntelChain } from '../chain/chains.js'
import { chainNotConfigured } from './chain-off.js'
import type { NodeIntelConfig, NodeIntelDex } from './config.js'
import { contractAge } from './contract-age.js'
import { checkHoneypot } from './honeypot.js'
import type { HoneypotDeps, HoneypotReport } from './honeypot-report.js'
import { NodeFacts } from './node-facts.js'
import { riskFactors, riskLevel, riskScore, type RiskFactor, type RiskLevel } from './risk.js'
import { pairFacts, tokenFacts, type TokenMetadata } from './token-facts.js'
import { NativePrice } from './native-price.js'
import { TtlCache } from './ttl-cache.js'

/** After a chain id mismatch, the check is repeated no sooner than this, ms (an operator may fix the node). */
const REVERIFY_MS = 60_000

export interface RiskReport {
  readonly chain: NodeIntelChain
  readonly token: Address
  readonly block_number: number
  readonly checked_at: string
  readonly score: number
  readonly level: RiskLevel
  readonly factors: readonly RiskFactor[]
  readonly metadata: TokenMetadata
  readonly contract: {
    readonly code_size: number
    readonly proxy: 'eip1967' | 'beacon' | 'eip1167' | null
    readonly implementation: Address | null
    readonly created_block: number | null
    readonly created_at: string | null
  }
  readonly holders: {
    readonly owner_pct: number | null
    readonly pair_pct: number | null
    readonly lp_burned_pct: number | null
    readonly lp_locked_pct: number | null
  }
  readonly liquidity: HoneypotReport['liquidity']
  readonly honeypot: Pick<HoneypotReport, 'verdict' | 'is_honeypot' | 'method' | 'simulation' | 'pair' | 'reasons'>
}

/** One node-intelligence chain: its shared client, DEX settings, caches and chain id state. */
export class ChainIntel {
  readonly facts: NodeFacts
  readonly honeypots: TtlCache<HoneypotReport>
  readonly risks: TtlCache<RiskReport>
  /** the native coin's USD price from the node's own DEX */
  readonly price: NativePrice
  private verified: { ok: true } | { error: ApiError; at: number } | null = null
  private verifying: Promise<void> | null = null
  /** creation blocks never change: kept for the process's life (bounded by the cache below) */
  private readonly ages = new TtlCache<Awaited<ReturnType<typeof contractAge>>>(Number.MAX_SAFE_INTEGER, 50_000)

  constructor(
    readonly chain: NodeIntelChain,
    readonly client: ChainClient,
    readonly dex: NodeIntelDex,
    private readonly cfg: NodeIntelConfig
  ) {
    this.facts = new NodeFacts(client)
    this.price = new NativePrice(client, dex, dex.usdToken)
    this.honeypots = new TtlCache(cfg.cacheMs)
    this.risks = new TtlCache(cfg.cacheMs)
    this.deps = {
      chain,
      client,
      dex,
      thresholds: cfg,
      maxIn: cfg.probeMaxIn,
      nativeUsd: () => this.price.usd()
    }
  }

  /** Resolves once the node's chain id matched; throws the mismatch (kept a minute) or the outage (not kept). */
  async ready(): Promise<void> {
    const v = this.verified
    if (v && 'ok' in v) return
    if (v && Date.now() - v.at < REVERIFY_MS) throw v.error
    this.verifying ??= this.client
      .verifyChainId()
      .then(
        () => void (this.verified = { ok: true }),
        (err: unknown) => {
          if (err instanceof ApiError && err.code === 'chain_mismatch') this.verified = { error: err, at: Date.now() }
          throw err
        }
      )
      .finally(() => (this.verifying = null))
    return this.verifying
  }

  /** the last chain id verdict without asking: true, false (mismatch) or null (not checked yet) */
  get chainIdOk(): boolean | null {
    return this.verified === null ? null : 'ok' in this.verified
  }

  private readonly deps: HoneypotDeps

  /** `minBlock`: a fresh check simulates on this block or a later one (a re-check after a transaction in it) */
  honeypot(token: Address, fresh: boolean, minBlock = 0n): Promise<{ value: HoneypotReport; hit: boolean }> {
    const check = () => this.honeypots.get(token, () => checkHoneypot(this.deps, this.facts, token, minBlock), fresh)
    // the chain id checked once: from then on the check starts at once
    return this.verified !== null && 'ok' in this.verified ? check() : this.ready().then(check)
  }

  async risk(token: Address, fresh: boolean): Promise<{ value: RiskReport; hit: boolean }> {
    await this.ready()
    return this.risks.get(token, () => this.computeRisk(token, fresh), fresh)
  }

  private async computeRisk(token: Address, fresh: boolean): Promise<RiskReport> {
    const { value: h } = await this.honeypot(token, fresh) // not_a_contract (404) surfaces here
    const facts = await tokenFacts(this.client, token)
    const [pair, age] = await Promise.all([
      pairFacts(this.client, token, h.pair, facts.metadata.owner, facts.metadata.total_supply, this.dex.lpLockers),
      this.ages.get(token, () => contractAge(this.client, token, BigInt(h.block_number))).then((r) => r.value)
    ])
    const factors = riskFactors({ honeypot: h, facts, pair, age, highTaxPct: this.cfg.highTaxPct, nowMs: Date.now() })
    const score = h.verdict === 'honeypot' ? 100 : riskScore(factors)
    return {
      chain: this.chain,
      token,
      block_number: h.block_number,
      checked_at: new Date().toISOString(),
      score,
      level: riskLevel(score),
      factors,
      metadata: facts.metadata,
      contract: {
        code_size: facts.code.size,
        proxy: facts.proxyKind,
        implementation: facts.implementation,
        created_block: age?.block ?? null,
        created_at: age ? new Date(age.timestampMs).toISOString() : null
      },
      holders: {
        owner_pct: pair.ownerPct,
        pair_pct: pair.pairPct,
        lp_burned_pct: pair.lpBurnedPct,
        lp_locked_pct: pair.lpLockedPct
      },
      liquidity: h.liquidity,
      honeypot: {
        verdict: h.verdict,
        is_honeypot: h.is_honeypot,
        method: h.method,
        simulation: h.simulation,
        pair: h.pair,
        reasons: h.reasons
      }
    }
  }
}

export class NodeIntelService {
  private readonly chains = new Map<NodeIntelChain, ChainIntel>()

  constructor(
    clients: ChainClientSet,
    readonly cfg: NodeIntelConfig
  ) {
    for (const chain of NODE_INTEL_CHAINS) {
      const client = clients.get(nodeIntelChain(chain))
      if (client) this.chains.set(chain, new ChainIntel(chain, client, cfg.dex[chain], cfg))
    }
  }

  /** node-intelligence chains with a node */
  configured(): NodeIntelChain[] {
    return [...this.chains.keys()]
  }

  /** the chain's intelligence, or 503 chain_not_configured naming the variable to set */
  get(chain: NodeIntelChain): ChainIntel {
    const c = this.chains.get(chain)
    if (!c) {
      throw chainNotConfigured(chain)
    }
    return c
  }

  has(chain: NodeIntelChain): boolean {
    return this.chains.has(chain)
  }
}
