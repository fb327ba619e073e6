/**
 * @module
 * Where one honeypot check's CPU goes inside the server (`npm run bench -- node-cpu`, docs/node-intel.md
 * "Where the CPU goes"): one process runs the wallet simulation's phases in a loop against a local anvil,
 * with the server's own code for each, and reads its own CPU time (`process.cpuUsage`, µs, user + system)
 * around each phase:
 *
 * - build: the `eth_simulateV1` parameters as JSON text (wallet-sim.ts `walletParams`: the calls encoded
 *   through viem and serialized, the probe's overrides spliced in as kept text);
 * - stringify: the JSON-RPC request around them (raw-rpc.ts `requestText`, as the lean client's `call`);
 * - transport: the POST through the lean client's undici pool and the answer's bytes read as text
 *   (the process's CPU only: anvil's is not counted);
 * - read: each call's status, data and gas read from the ~28 KB answer's text (sim-answer.ts, as the lean
 *   client's picker in `runWalletSim`);
 * - decode: the buy's and the probe run's return data through viem's ABI decoder (wallet-read.ts
 *   `readWalletSim`);
 * - verdict: `judge` and the contract-only reasons (verdict.ts);
 * - reply: the report's JSON text (`JSON.stringify` of an answer of the API's shape).
 *
 * The route, the key check and uWebSockets.js's request and reply are what the API side's server CPU per
 * check (bench/node/node.ts) holds beyond the sum of these.
 */
import { Pool, type Dispatcher } from 'undici'
import { parseEther, type Address } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { AnswerReader, requestText } from '../../engine/chain/raw-rpc.js'
import { contractOnlyReasons, judge } from '../../engine/nodeintel/verdict.js'
import { simOutcomesFromText } from '../../engine/nodeintel/sim-answer.js'
import { readWalletSim } from '../../engine/nodeintel/wallet-read.js'
import {
  walletParams,
  walletRequest,
  type CallOutcome,
  type WalletSimInput
} from '../../engine/nodeintel/wallet-sim.js'
import { startAnvil } from './evm/anvil.js'
import { deployNodeIntelFixtures } from './evm/nodeintel-fixtures.js'

const CALLS = Number(process.env['BENCH_NODE_CALLS'] ?? 1000)
const WARMUP = 300
const PHASES = ['build', 'stringify', 'transport', 'read', 'decode', 'verdict', 'reply'] as const
type Phase = (typeof PHASES)[number]

interface RpcSimBlock {
  readonly calls: readonly { status: string; returnData: `0x${string}`; gasUsed: string; error?: { data?: string } }[]
}

const cpuUs = (): number => {
  const c = process.cpuUsage()
  return c.user + c.system
}

/** One round of `n` checks' phases; CPU µs per check of each phase. */
async function round(
  n: number,
  pool: Pool,
  input: WalletSimInput,
  thresholds: { highTaxPct: number; honeypotTaxPct: number }
): Promise<Record<Phase, number>> {
  const sum = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>
  const post = (body: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) =>
      pool.dispatch(
        { path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body },
        new AnswerReader(resolve, reject) as unknown as Dispatcher.DispatchHandler
      )
    )
  for (let i = 0; i < n; i++) {
    let t = cpuUs()
    const lap = (p: Phase): void => {
      const now = cpuUs()
      sum[p] += now - t
      t = now
    }
    const params = walletParams(input)
    lap('build')
    const body = requestText(1, 'eth_simulateV1', params)
    lap('stringify')
    const { text } = await post(body)
    lap('transport')
    const blocks = simOutcomesFromText(text)?.blocks
    if (!blocks) throw new Error('the answer was not a plain eth_simulateV1 answer')
    lap('read')
    const sim = readWalletSim(input, blocks)
    if (!sim?.complete) throw new Error('the wallet simulation was not complete')
    lap('decode')
    const j = judge(sim.wallet, thresholds)
    const reasons = sim.contract ? [...j.reasons, ...contractOnlyReasons(sim.wallet, sim.contract)] : j.reasons
    lap('verdict')
    JSON.stringify({
      chain: 'bsc',
      token: input.token,
      block_number: Number(sim.wallet.blockNumber),
      checked_at: new Date().toISOString(),
      is_honeypot: j.isHoneypot,
      verdict: j.verdict,
      simulation: j.simulation,
      pair: sim.wallet.pair,
      liquidity: { base_symbol: 'WBNB', reserve_base: '100', reserve_token: '1000000', usd: null },
      method: 'simulate_v1_wallet',
      reasons
    })
    lap('reply')
  }
  return Object.fromEntries(PHASES.map((p) => [p, Math.round((sum[p] / n) * 10) / 10])) as Record<Phase, number>
}

export async function checkCpuBench(rounds: number): Promise<Record<string, unknown>> {
  const anvil = await startAnvil({ chainId: 56 })
  const pool = new Pool(anvil.url, { connections: 1 })
  try {
    const fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
    const token: Address = fx.tokens.clean
    const block = await anvil.rpc<{ number: string; timestamp: string }>('eth_getBlockByNumber', ['latest', false])
    const gasPrice = BigInt(await anvil.rpc<string>('eth_gasPrice'))
    const head = { number: BigInt(block.number), timestamp: BigInt(block.timestamp) }
    const base = { router: fx.uni.router, wrappedNative: fx.uni.weth, token, maxIn: parseEther('1'), gasPrice, head }
    // the plan the token's buy gives, as the server's first check finds it
    const first = JSON.parse(
      JSON.stringify({ r: await anvil.rpc('eth_simulateV1', walletRequest({ ...base, plan: null })) })
    ) as { r: RpcSimBlock[] }
    const firstBlocks = first.r.map((b) =>
      b.calls.map((x): CallOutcome => ({
        status: x.status === '0x1' ? 'success' : 'failure',
        data: (x.error?.data ?? x.returnData) as `0x${string}`,
        gasUsed: BigInt(x.gasUsed)
      }))
    )
    const plan = readWalletSim({ ...base, plan: null }, firstBlocks)?.plan
    if (!plan) throw new Error('the wallet buy of the benchmark token delivered nothing')
    const input: WalletSimInput = { ...base, plan }
    const thresholds = { highTaxPct: 10, honeypotTaxPct: 90 }
    await round(WARMUP, pool, input, thresholds)
    const perRound: Record<Phase, number>[] = []
    for (let i = 0; i < rounds; i++) perRound.push(await round(CALLS, pool, input, thresholds))
    const median = (p: Phase): number => {
      const v = perRound.map((r) => r[p]).sort((a, b) => a - b)
      return v[Math.floor(v.length / 2)]!
    }
    const us = Object.fromEntries(PHASES.map((p) => [p, median(p)])) as Record<Phase, number>
    const total = PHASES.reduce((s, p) => s + us[p], 0)
    return {
      calls_per_round: CALLS,
      rounds: perRound,
      median_cpu_us_per_check: us,
      total_us: Math.round(total),
      shares_pct: Object.fromEntries(PHASES.map((p) => [p, Math.round((us[p] / total) * 1000) / 10]))
    }
  } finally {
    await pool.close()
    await anvil.stop()
  }
}
