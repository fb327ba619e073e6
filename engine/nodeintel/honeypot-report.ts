/**
 * @module
 * The honeypot check's answer (engine/nodeintel/honeypot.ts): the report's shape, the dependencies a check
 * runs with, and the report built from a simulation's result and its judgement (engine/nodeintel/verdict.ts),
 * or without one (verdict `unknown`, with what the token's code shows).
 */
import { formatEther, formatUnits, type Address, type Hex } from 'viem'
import { ApiError } from '../errors.js'
import type { ChainClient } from '../chain/chain-client.js'
import { nodeIntelWrappedSymbol, type NodeIntelChain } from '../chain/chains.js'
import { codeFindings, type CodeScan } from './bytecode.js'
import type { NodeIntelDex } from './config.js'
import type { ProbeResult } from './probe.js'
import type { Judgement, Simulation, Thresholds, Verdict } from './verdict.js'

export interface Liquidity {
  /** symbol of the pair's base side (the wrapped native) */
  readonly base_symbol: string
  /** the pair's wrapped-native reserve, whole coins (decimal string) */
  readonly reserve_base: string
  /** the pair's token reserve, whole tokens (decimal string; raw units when decimals are unknown) */
  readonly reserve_token: string
  /** both sides at the native coin's USD price (2 × the native side); null where the coin is not priced */
  readonly usd: number | null
}

export interface HoneypotReport {
  readonly chain: NodeIntelChain
  readonly token: Address
  readonly block_number: number
  /** ISO 8601 UTC */
  readonly checked_at: string
  /** null when the check could not tell (no liquidity, buy failed, bytecode only) */
  readonly is_honeypot: boolean | null
  readonly verdict: Verdict
  readonly simulation: Simulation | null
  /** the pair traded through (null: none with the wrapped native) */
  readonly pair: Address | null
  readonly liquidity: Liquidity | null
  /**
   * which simulation answered: `simulate_v1_wallet` (a wallet's transactions in successive blocks,
   * eth_simulateV1), `probe_contract` (one eth_call of the probe contract), `probe_constructor` (the probe
   * run by its constructor, after the probe contract was refused a step), `bytecode_only` (no simulation)
   */
  readonly method: HoneypotMethod
  readonly reasons: readonly string[]
}

export type HoneypotMethod = 'simulate_v1_wallet' | 'probe_contract' | 'probe_constructor' | 'bytecode_only'

export interface HoneypotDeps {
  readonly chain: NodeIntelChain
  readonly client: ChainClient
  readonly dex: NodeIntelDex
  readonly thresholds: Thresholds
  /** wei of native the probe may buy with at most (NODEINTEL_PROBE_MAX_IN) */
  readonly maxIn: bigint
  /** the native coin's USD price (null: not priced) */
  readonly nativeUsd: () => Promise<number | null>
}

/** An address with no code → 404 not_a_contract. */
export function requireContract(chain: NodeIntelChain, token: Address, code: Hex | undefined): void {
  if (!code || code === '0x') {
    throw new ApiError('not_a_contract', `${token} holds no contract code on ${chain}`, { param: 'token' })
  }
}

export async function report(
  d: HoneypotDeps,
  token: Address,
  result: ProbeResult,
  j: Judgement,
  method: HoneypotMethod
): Promise<HoneypotReport> {
  const hasPair = !/^0x0{40}$/i.test(result.pair)
  const decimals = result.decimals <= 255n ? Number(result.decimals) : null
  return {
    chain: d.chain,
    token,
    block_number: Number(result.blockNumber),
    checked_at: new Date().toISOString(),
    is_honeypot: j.isHoneypot,
    verdict: j.verdict,
    simulation: j.simulation,
    pair: hasPair ? result.pair : null,
    liquidity: hasPair ? liquidity(d, result.reserveBase, result.reserveToken, decimals, await d.nativeUsd()) : null,
    method,
    reasons: j.reasons
  }
}

export type ReportBase = Pick<HoneypotReport, 'chain' | 'token' | 'block_number' | 'checked_at'>

/** An answer without a simulation result: verdict unknown. */
export function undetermined(base: ReportBase, method: HoneypotReport['method'], reasons: string[]): HoneypotReport {
  return {
    ...base,
    is_honeypot: null,
    verdict: 'unknown',
    simulation: null,
    pair: null,
    liquidity: null,
    method,
    reasons
  }
}

function liquidity(
  d: HoneypotDeps,
  reserveBase: bigint,
  reserveToken: bigint,
  decimals: number | null,
  price: number | null
): Liquidity {
  const base = Number(formatEther(reserveBase))
  return {
    base_symbol: nodeIntelWrappedSymbol(d.chain),
    reserve_base: formatEther(reserveBase),
    reserve_token: decimals === null ? reserveToken.toString() : formatUnits(reserveToken, decimals),
    usd: price === null ? null : Math.round(2 * base * price * 100) / 100
  }
}

/** What the code alone shows, for nodes that cannot simulate: every group the code walk found (codeFindings). */
export function bytecodeOnly(base: ReportBase, scan: CodeScan): HoneypotReport {
  const reasons = ['the node refuses eth_call state overrides: no simulation, bytecode analysis only']
  return undetermined(base, 'bytecode_only', [...reasons, ...codeFindings(scan)])
}
