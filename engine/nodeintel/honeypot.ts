/**
 * @module
 * The honeypot check of one token on one chain (GET /v1/node/{chain}/honeypot/{token}): one unbatched
 * eth_call of the probe (engine/nodeintel/probe.ts), which also reports the block, the token's code size and
 * decimals; judged by engine/nodeintel/verdict.ts. The call is the hot path: its body is viem's own,
 * pre-serialized once per gas price with the token spliced in (engine/nodeintel/probe-body.ts), POSTed
 * through the chain client's kept-alive pool (ChainClient.post); an answer that is not a result (an error
 * object, a non-string) is asked again through viem's `call`, so every error reads as before. Without a probe result (a node that refuses or ignores
 * state overrides, or a probe revert) the token's code and the head are read: no code is 404, a node without
 * overrides gets `method: "bytecode_only"` (verdict `unknown` with what the code shows).
 */
import { formatEther, formatUnits, type Address, type Hex } from 'viem'
import { ApiError } from '../errors.js'
import { errorText, type ChainClient } from '../chain/chain-client.js'
import { nodeIntelDefaults, type NodeIntelChain } from '../chain/chains.js'
import { scanCode, type CodeScan } from './bytecode.js'
import type { NodeIntelDex } from './config.js'
import { decodeProbe, supportsStateOverride } from './probe.js'
import type { ProbeBodies } from './probe-body.js'
import { revertReason } from './revert-reason.js'
import { judge, type Simulation, type Thresholds, type Verdict } from './verdict.js'

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
  readonly method: 'simulation' | 'bytecode_only'
  readonly reasons: readonly string[]
}

export interface HoneypotDeps {
  readonly chain: NodeIntelChain
  readonly client: ChainClient
  readonly dex: NodeIntelDex
  readonly thresholds: Thresholds
  /** the native coin's USD price (null: not priced) */
  readonly nativeUsd: () => Promise<number | null>
  /** the probe's pre-serialized request bodies for this chain's router, wrapped native and maxIn */
  readonly bodies: ProbeBodies
}

/** How long the node's gas price is reused, ms (the probe only needs a realistic one). */
const GAS_PRICE_TTL_MS = 10_000
/** How long a node's answer to "do you honour state overrides?" is trusted, ms. */
const OVERRIDE_CHECK_TTL_MS = 600_000

/** Per-chain facts the checks reuse: the gas price and whether the node honours state overrides. */
export class NodeFacts {
  private gas: { value: bigint; at: number } | null = null
  private refreshing: Promise<bigint> | null = null
  private overrides: { value: boolean; at: number } | null = null

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
}

/** An address with no code → 404 not_a_contract. */
export function requireContract(chain: NodeIntelChain, token: Address, code: Hex | undefined): void {
  if (!code || code === '0x') {
    throw new ApiError('not_a_contract', `${token} holds no contract code on ${chain}`, { param: 'token' })
  }
}

type ProbeAnswer = { data: Hex | undefined } | { error: unknown }

/**
 * The probe's eth_call alone (latency): its data (`0x` meaning none, as viem's `call` reads it), or the
 * node's own JSON-RPC error object (transport errors throw). One request, whatever the node answers: the
 * error is only read when no other reason applies (`probeError`).
 */
async function probe(d: HoneypotDeps, token: Address, gasPrice: bigint): Promise<ProbeAnswer> {
  const body = await d.bodies.body(token, gasPrice)
  const answer = (await d.client.post('honeypot_probe', body)) as { result?: unknown; error?: unknown } | null
  if (answer && !answer.error && typeof answer.result === 'string') {
    return { data: answer.result === '0x' ? undefined : (answer.result as Hex) }
  }
  return { error: answer?.error ?? { message: 'the node answered without a result' } }
}

export async function checkHoneypot(d: HoneypotDeps, facts: NodeFacts, token: Address): Promise<HoneypotReport> {
  const gasPrice = await facts.gasPrice()
  // one request: the probe also reports the block, the token's code size and its decimals
  const res = await probe(d, token, gasPrice)
  const result = 'data' in res ? decodeProbe(res.data) : null
  if (result) {
    if (result.codeSize === 0n) requireContract(d.chain, token, '0x')
    const j = judge(result, d.thresholds)
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
      method: 'simulation',
      reasons: j.reasons
    }
  }
  // no probe result: the node refused or ignored the override, or the probe reverted (a wrong router)
  const [code, block] = await d.client.request('honeypot_fallback', (c) =>
    Promise.all([c.getCode({ address: token }), c.getBlockNumber({ cacheTime: 0 })])
  )
  requireContract(d.chain, token, code)
  const base = { chain: d.chain, token, block_number: Number(block), checked_at: new Date().toISOString() }
  if (!(await facts.overridesSupported())) return bytecodeOnly(base, scanCode(code))
  const why = 'error' in res ? probeError(res.error) : 'the probe returned nothing'
  return undetermined(base, 'simulation', [`the probe failed: ${why} (check the ${d.chain} DEX router setting)`])
}

type ReportBase = Pick<HoneypotReport, 'chain' | 'token' | 'block_number' | 'checked_at'>

/** An answer without a simulation result: verdict unknown. */
function undetermined(base: ReportBase, method: HoneypotReport['method'], reasons: string[]): HoneypotReport {
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

/**
 * A JSON-RPC error object's reason: the decoded revert data when it carries some (`data` as 0x-hex, or nested
 * under `data.data` as some nodes send it, as viem's error walk finds it), else its message.
 */
export function probeError(err: unknown): string {
  let data = (err as { data?: unknown } | null)?.data
  for (let depth = 0; depth < 3 && data !== null && typeof data === 'object'; depth++) {
    data = (data as { data?: unknown }).data
  }
  if (typeof data === 'string' && data.startsWith('0x')) return revertReason(data as Hex)
  const message = (err as { message?: unknown } | null)?.message
  return typeof message === 'string' ? message : errorText(err)
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
    base_symbol: nodeIntelDefaults(d.chain).wrappedSymbol,
    reserve_base: formatEther(reserveBase),
    reserve_token: decimals === null ? reserveToken.toString() : formatUnits(reserveToken, decimals),
    usd: price === null ? null : Math.round(2 * base * price * 100) / 100
  }
}

/** What the code alone shows, for nodes that cannot simulate. */
function bytecodeOnly(base: ReportBase, scan: CodeScan): HoneypotReport {
  const reasons = ['the node refuses eth_call state overrides: no simulation, bytecode analysis only']
  const g = scan.groups
  if (g.blacklist) reasons.push(`blacklist functions: ${g.blacklist.join(', ')}`)
  if (g.fee_setter) reasons.push(`fee setters: ${g.fee_setter.join(', ')}`)
  if (g.pause || g.trading_switch)
    reasons.push(`trading switches: ${[...(g.pause ?? []), ...(g.trading_switch ?? [])].join(', ')}`)
  if (g.mint) reasons.push(`mint functions: ${g.mint.join(', ')}`)
  if (scan.selfdestruct) reasons.push('contains SELFDESTRUCT')
  return undetermined(base, 'bytecode_only', reasons)
}
