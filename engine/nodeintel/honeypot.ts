/**
 * @module
 * The honeypot check of one token on one chain (GET /v1/node/{chain}/honeypot/{token}): one unbatched
 * eth_call of the probe through viem (engine/nodeintel/probe.ts), which also reports the block, the token's
 * code size and decimals; judged by engine/nodeintel/verdict.ts. A JSON-RPC error answer is read from the
 * node's own error object (its revert data decoded, else its message) and the probe is not sent again.
 * Without a probe result (a node that refuses or ignores state overrides, or a probe revert) the token's
 * code and the head are read: no code is 404, a node without overrides gets `method: "bytecode_only"`
 * (verdict `unknown` with what the code shows).
 */
import { formatEther, formatUnits, RpcRequestError, type Address, type Hex, type PublicClient } from 'viem'
import { ApiError } from '../errors.js'
import { errorText, isTransportError, type ChainClient } from '../chain/chain-client.js'
import { nodeIntelDefaults, type NodeIntelChain } from '../chain/chains.js'
import { scanCode, type CodeScan } from './bytecode.js'
import type { NodeIntelDex } from './config.js'
import { decodeProbe, probeCall, supportsStateOverride } from './probe.js'
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
  /** wei of native the probe may buy with at most (NODEINTEL_PROBE_MAX_IN) */
  readonly maxIn: bigint
  /** the native coin's USD price (null: not priced) */
  readonly nativeUsd: () => Promise<number | null>
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

/** The probe's eth_call alone, unbatched (latency): its data, or the node's own error (transport errors throw). */
function probe(d: HoneypotDeps, token: Address, gasPrice: bigint): Promise<ProbeAnswer> {
  const call = probeCall({ router: d.dex.router, wrappedNative: d.dex.wrappedNative, token, maxIn: d.maxIn, gasPrice })
  return d.client.request('honeypot_probe', (c) => runProbe(c, call), { batch: false })
}

/**
 * viem's `call` of the probe: its data (`0x` reads as none), or the node's JSON-RPC error object as the node
 * sent it (the cause of viem's `RpcRequestError`); transport errors throw. Errors are caught here, inside
 * the client's request, so a node's refusal is the caller's to judge and not counted as an RPC error.
 */
export function runProbe(c: PublicClient, call: Parameters<PublicClient['call']>[0]): Promise<ProbeAnswer> {
  return c.call(call).then(
    (r) => ({ data: r.data }),
    (err: unknown) => {
      if (isTransportError(err)) throw err
      const rpc =
        err instanceof RpcRequestError
          ? err
          : (err as { walk?: (f: (e: unknown) => boolean) => unknown }).walk?.((e) => e instanceof RpcRequestError)
      return { error: rpc instanceof RpcRequestError ? rpc.cause : { message: errorText(err) } }
    }
  )
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
