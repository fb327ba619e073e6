/**
 * @module
 * The honeypot check of one token on one chain (GET /v1/node/{chain}/honeypot/{token}), judged by
 * engine/nodeintel/verdict.ts. Where the node runs eth_simulateV1 (detected once, kept 10 minutes,
 * detected again after a failed simulation), a wallet's separate transactions in successive blocks
 * (engine/nodeintel/wallet-sim.ts: `method: "simulate_v1_wallet"`), on top of the head block read first.
 * Otherwise, or when the simulation fails, one unbatched eth_call of the probe contract through viem
 * (engine/nodeintel/probe.ts: `method: "probe_contract"`), which also reports the block, the token's code
 * size and decimals. A JSON-RPC error answer is read from the node's own error object (its revert data
 * decoded, else its message) and the probe is not sent again. Without a probe result (a node that refuses
 * or ignores state overrides, or a probe revert) the token's code and the head are read: no code is 404, a
 * node without overrides gets `method: "bytecode_only"` (verdict `unknown` with what the code shows).
 */
import { formatEther, formatUnits, RpcRequestError, type Address, type Hex, type PublicClient } from 'viem'
import { ApiError } from '../errors.js'
import { errorText, isTransportError, type ChainClient } from '../chain/chain-client.js'
import { nodeIntelWrappedSymbol, type NodeIntelChain } from '../chain/chains.js'
import { codeFindings, scanCode, type CodeScan } from './bytecode.js'
import type { NodeIntelDex } from './config.js'
import { decodeProbe, probeCall, probeInitCall, type ProbeResult } from './probe.js'
import { revertReason } from './revert-reason.js'
import {
  contractOnlyReasons,
  judge,
  type Judgement,
  type Simulation,
  type Thresholds,
  type Verdict
} from './verdict.js'
import { NodeFacts, SIMULATIONS_WAITING } from './node-facts.js'
import { SemaphoreFullError } from '../runtime/semaphore.js'
import { readWalletSim } from './wallet-read.js'
import { runWalletSim, type WalletSimInput } from './wallet-sim.js'

export { NodeFacts }

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

type ProbeAnswer = { data: Hex | undefined } | { error: unknown }

/**
 * The probe's eth_call alone, unbatched (latency): its data, or the node's own error (transport errors throw).
 * `init`: the constructor probe.
 */
function probe(d: HoneypotDeps, token: Address, gasPrice: bigint, init = false): Promise<ProbeAnswer> {
  const input = { router: d.dex.router, wrappedNative: d.dex.wrappedNative, token, maxIn: d.maxIn, gasPrice }
  const call = init ? probeInitCall(input) : probeCall(input)
  return d.client.request(init ? 'honeypot_probe_init' : 'honeypot_probe', (c) => runProbe(c, call), { batch: false })
}

const bought = (r: ProbeResult): boolean => r.buy.ok && r.buy.received > 0n
const sold = (r: ProbeResult): boolean => r.sell.ok && r.sell.received > 0n

/**
 * The constructor probe's result when it passed a step the probe contract failed (the token refuses
 * addresses with code), else null. Asked only after such a failure: one more eth_call.
 */
async function constructorRetry(
  d: HoneypotDeps,
  token: Address,
  gasPrice: bigint,
  contract: ProbeResult
): Promise<ProbeResult | null> {
  const liquid = !/^0x0{40}$/i.test(contract.pair) && contract.amountIn > 0n
  const refused = !bought(contract) || !contract.approveOk || !sold(contract) || !contract.xfer.ok
  if (!liquid || !refused) return null
  const res = await probe(d, token, gasPrice, true)
  let init: ProbeResult | null = null
  try {
    init = 'data' in res ? decodeProbe(res.data) : null
  } catch {
    return null
  }
  if (!init) return null
  const better =
    (bought(init) && !bought(contract)) ||
    (bought(contract) && sold(init) && !sold(contract)) ||
    (bought(contract) && init.xfer.ok && !contract.xfer.ok)
  // the constructor cannot try (and undo) selling everything: the probe contract's answer stands for it
  return better ? { ...init, sellAllOk: sold(contract) ? contract.sellAllOk : true } : null
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

/** The wallet simulation's requests at most per check: the buy alone, then with a plan that fits. */
const WALLET_ATTEMPTS = 2

/**
 * The check as a wallet meets the token (eth_simulateV1), or why it failed: `byNode` when the node's
 * simulation itself failed (the node is then asked about eth_simulateV1 again next time); the caller falls
 * back to the probe contract either way.
 */
async function walletCheck(
  d: HoneypotDeps,
  facts: NodeFacts,
  token: Address,
  gasPrice: bigint,
  minBlock: bigint
): Promise<HoneypotReport | { failed: string; byNode: boolean }> {
  let head = facts.headKept(minBlock) ?? (await facts.head(minBlock))
  if (head === null) return { failed: 'the head block has no number', byNode: true }
  let reread = false
  /**
   * true once (then the loop runs again, not counted as an attempt) when the head kept predates the head now:
   * a token deployed or listed since has no code or no buy on the kept one
   */
  const newerHead = async (): Promise<boolean> => {
    if (reread) return false
    reread = true
    const latest = await facts.latestHead()
    if (latest === null || latest.number <= head!.number) return false
    head = latest
    attempt--
    return true
  }
  let attempt = 0
  let plan = facts.plan(token)
  for (; attempt < WALLET_ATTEMPTS; attempt++) {
    const input: WalletSimInput = {
      router: d.dex.router,
      wrappedNative: d.dex.wrappedNative,
      token,
      maxIn: d.maxIn,
      gasPrice,
      head,
      plan
    }
    const res = await simulationSlot(d, facts, () =>
      d.client.request('honeypot_simulate', (_c, raw) => runWalletSim((m, p) => raw.call(m, p), input), {
        batch: false
      })
    )
    if ('error' in res) return { failed: probeError(rpcCause(res.error)), byNode: true }
    const sim = readWalletSim(input, res.blocks)
    if (!sim && (await newerHead())) continue
    if (!sim) {
      const buy = res.blocks[0]?.[0]
      // a buy that reverted is the router setting's doing (as a probe revert is); no answer is the node's
      return buy?.status === 'failure'
        ? { failed: `the wallet's buy reverted: ${revertReason(buy.data)}`, byNode: false }
        : { failed: "the wallet's buy returned nothing", byNode: true }
    }
    if (sim.wallet.codeSize === 0n) {
      if (await newerHead()) continue
      requireContract(d.chain, token, '0x')
    }
    facts.setPlan(token, sim.plan)
    if (!sim.complete && sim.plan) {
      plan = sim.plan
      continue
    }
    const j = judge(sim.wallet, d.thresholds)
    const reasons = sim.contract ? [...j.reasons, ...contractOnlyReasons(sim.wallet, sim.contract)] : j.reasons
    return report(d, token, sim.wallet, { ...j, reasons }, 'simulate_v1_wallet')
  }
  return { failed: 'the buy delivered a different amount on the same block', byNode: false }
}

/**
 * Runs `fn` holding one of the chain's simulation slots (node-facts.ts SIMULATIONS_AT_ONCE): the wait is
 * here, before the request's timeout starts. A full waiting line answers 503 chain_unavailable.
 */
function simulationSlot<T>(d: HoneypotDeps, facts: NodeFacts, fn: () => Promise<T>): Promise<T> {
  const slots = facts.simulations
  if (slots.tryAcquire()) return holding(slots, fn)
  return slots.acquire().then(
    () => holding(slots, fn),
    (err: unknown) => {
      if (!(err instanceof SemaphoreFullError)) throw err
      throw new ApiError(
        'chain_unavailable',
        `more than ${SIMULATIONS_WAITING} honeypot checks are waiting for the ${d.chain} node; retry shortly`,
        { cause: err, headers: { 'Retry-After': '1' }, details: { chain: d.chain } }
      )
    }
  )
}

/** `fn`'s promise, the slot taken given back when it settles (or when `fn` throws). */
function holding<T>(slots: NodeFacts['simulations'], fn: () => Promise<T>): Promise<T> {
  let call: Promise<T>
  try {
    call = fn()
  } catch (err) {
    slots.release()
    return Promise.reject(err)
  }
  return call.then(
    (v) => {
      slots.release()
      return v
    },
    (err: unknown) => {
      slots.release()
      throw err
    }
  )
}

/** viem's error of a failed simulation as the node's own error object, as runProbe reads it. */
function rpcCause(err: unknown): unknown {
  const rpc =
    err instanceof RpcRequestError
      ? err
      : (err as { walk?: (f: (e: unknown) => boolean) => unknown } | null)?.walk?.((e) => e instanceof RpcRequestError)
  return rpc instanceof RpcRequestError ? rpc.cause : { message: errorText(err) }
}

async function report(
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

/**
 * The check of `token`. `minBlock`: the wallet simulation builds on this block or a later one (a re-check
 * after a transaction in that block); otherwise on the head read within the chain's block time.
 */
export async function checkHoneypot(
  d: HoneypotDeps,
  facts: NodeFacts,
  token: Address,
  minBlock = 0n
): Promise<HoneypotReport> {
  // both kept (a request only when stale): asked together when one is not
  let gasPrice = facts.gasPriceKept()
  let simulates = facts.simulateV1Kept()
  if (gasPrice === undefined || simulates === undefined)
    [gasPrice, simulates] = await Promise.all([facts.gasPrice(), facts.simulateV1Supported()])
  let walletFailed: string | null = null
  if (simulates) {
    const w = await walletCheck(d, facts, token, gasPrice, minBlock)
    if (!('failed' in w)) return w
    walletFailed = w.failed
    if (w.byNode) facts.simulateV1Failed()
  }
  const fallback = await probeCheck(d, facts, token, gasPrice)
  if (walletFailed === null) return fallback
  return {
    ...fallback,
    reasons: [...fallback.reasons, `the wallet simulation (eth_simulateV1) failed: ${walletFailed}`]
  }
}

/** The check with the probe contract (one eth_call), for nodes without eth_simulateV1. */
async function probeCheck(
  d: HoneypotDeps,
  facts: NodeFacts,
  token: Address,
  gasPrice: bigint
): Promise<HoneypotReport> {
  // one request: the probe also reports the block, the token's code size and its decimals
  const res = await probe(d, token, gasPrice)
  const result = 'data' in res ? decodeProbe(res.data) : null
  if (result) {
    if (result.codeSize === 0n) requireContract(d.chain, token, '0x')
    const init = await constructorRetry(d, token, gasPrice, result)
    if (init) {
      const j = judge(init, d.thresholds)
      return report(
        d,
        token,
        init,
        { ...j, reasons: [...j.reasons, ...contractOnlyReasons(init, result, 'the constructor probe')] },
        'probe_constructor'
      )
    }
    return report(d, token, result, judge(result, d.thresholds), 'probe_contract')
  }
  // no probe result: the node refused or ignored the override, or the probe reverted (a wrong router)
  const [code, block] = await d.client.request('honeypot_fallback', (c) =>
    Promise.all([c.getCode({ address: token }), c.getBlockNumber({ cacheTime: 0 })])
  )
  requireContract(d.chain, token, code)
  const base = { chain: d.chain, token, block_number: Number(block), checked_at: new Date().toISOString() }
  if (!(await facts.overridesSupported())) return bytecodeOnly(base, scanCode(code))
  const why = 'error' in res ? probeError(res.error) : 'the probe returned nothing'
  return undetermined(base, 'probe_contract', [
    `the probe failed: ${why} (check the ${d.chain} DEX router setting)`,
    ...codeFindings(scanCode(code))
  ])
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
    base_symbol: nodeIntelWrappedSymbol(d.chain),
    reserve_base: formatEther(reserveBase),
    reserve_token: decimals === null ? reserveToken.toString() : formatUnits(reserveToken, decimals),
    usd: price === null ? null : Math.round(2 * base * price * 100) / 100
  }
}

/** What the code alone shows, for nodes that cannot simulate: every group the code walk found (codeFindings). */
function bytecodeOnly(base: ReportBase, scan: CodeScan): HoneypotReport {
  const reasons = ['the node refuses eth_call state overrides: no simulation, bytecode analysis only']
  return undetermined(base, 'bytecode_only', [...reasons, ...codeFindings(scan)])
}
