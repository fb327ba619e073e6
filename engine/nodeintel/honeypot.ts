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
import type { Address } from 'viem'
import { ApiError } from '../errors.js'
import { codeFindings, scanCode } from './bytecode.js'
import { decodeProbe } from './probe.js'
import { revertReason } from './revert-reason.js'
import { contractOnlyReasons, judge } from './verdict.js'
import { SIMULATIONS_WAITING, type NodeFacts } from './node-facts.js'
import { SemaphoreFullError } from '../runtime/semaphore.js'
import { readWalletSim } from './wallet-read.js'
import { runWalletSim, type WalletSimInput } from './wallet-sim.js'
import { constructorRetry, probe, probeError, rpcCause } from './honeypot-probe.js'
import {
  bytecodeOnly,
  report,
  requireContract,
  undetermined,
  type HoneypotDeps,
  type HoneypotReport
} from './honeypot-report.js'

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
      d.client.request('honeypot_simulate', (_c, raw) => runWalletSim((m, p, pick) => raw.call(m, p, pick), input), {
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
