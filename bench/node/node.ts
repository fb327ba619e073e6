/**
 * @module
 * Node intelligence benchmark (`npm run bench -- node`, docs/node-intel.md), against a local anvil node
 * (chain id 56) holding the fixture tokens and 100 more listed tokens, with the built server in its own
 * process (BSC_RPC_URL = anvil, SOURCES=none):
 *
 * - honeypot latency: GET /v1/node/bsc/honeypot/{token}?fresh=1 (cache bypassed: every request runs the
 *   probe) one at a time, against the bare `eth_call` of the same probe (same parameters, viem, straight to
 *   anvil), alternating rounds of ROUND_CALLS each; p50 and p99 per side, and the ratio of the p99s.
 *   Targets: API p99 <= 50 ms and <= 1.5x the bare call's p99.
 * - 100 concurrent risk checks of distinct tokens (GET /v1/node/bsc/token-risk/{token}?fresh=1, all sent at
 *   once): errors (target 0) and checks/s, per round.
 */
import { createPublicClient, http, parseEther, type Address, type PublicClient } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { probeCall } from '../../engine/nodeintel/probe.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { startAnvil } from './evm/anvil.js'
import { deployNodeIntelFixtures } from './evm/nodeintel-fixtures.js'
import { addLiquidityEth, deployContract } from './evm/uniswap.js'

const PORT = 19241
/** sequential calls per side per round */
const ROUND_CALLS = Number(process.env['BENCH_NODE_CALLS'] ?? 300)
/** concurrent risk checks (distinct tokens) */
const RISK_TOKENS = 100
const WARMUP_CALLS = 50

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
const r2 = (n: number): number => Math.round(n * 100) / 100

async function timed(n: number, fn: () => Promise<void>): Promise<{ p50: number; p99: number }> {
  const ms: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await fn()
    ms.push(performance.now() - t)
  }
  ms.sort((a, b) => a - b)
  return { p50: r2(pct(ms, 50)), p99: r2(pct(ms, 99)) }
}

export async function nodeBench(rounds: number): Promise<Record<string, unknown>> {
  const anvil = await startAnvil({ chainId: 56 })
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined
  try {
    const fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
    const plain = fx.compiled['PlainToken']!
    const tokens: Address[] = []
    for (let i = 0; i < RISK_TOKENS; i++) {
      const t = await deployContract(fx.uni, plain.abi, plain.bytecode, [`Bench${i}`, `B${i}`, parseEther('1000000')])
      await addLiquidityEth(fx.uni, t, parseEther('100000'), parseEther('10'), { tokenAbi: plain.abi })
      tokens.push(t)
    }
    server = await startBenchServer(PORT, {
      SOURCES: 'none',
      BSC_RPC_URL: anvil.url,
      BSC_RPC_RATE: '100000',
      BSC_DEX_ROUTER: fx.uni.router,
      BSC_DEX_FACTORY: fx.uni.factory,
      NODEINTEL_NEW_PAIRS_POLL_MS: '0'
    })
    const created = await fetch(`${server.base}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'enterprise', name: 'bench-node' })
    })
    const key = ((await created.json()) as { key: string }).key
    const headers = { 'x-api-key': key }
    const token = fx.tokens.clean
    const apiCall = async (): Promise<void> => {
      const res = await fetch(`${server!.base}/v1/node/bsc/honeypot/${token}?fresh=1`, { headers })
      const body = (await res.json()) as { verdict?: string }
      if (res.status !== 200 || body.verdict !== 'ok') throw new Error(`honeypot answered ${res.status}`)
    }
    const bare = createPublicClient({ transport: http(anvil.url) }) as PublicClient
    const gasPrice = await bare.getGasPrice()
    const call = probeCall({
      router: fx.uni.router,
      wrappedNative: fx.uni.weth,
      token,
      maxIn: parseEther('1'),
      gasPrice
    })
    const bareCall = async (): Promise<void> => {
      const r = await bare.call(call)
      if (!r.data || r.data === '0x') throw new Error('bare probe returned nothing')
    }
    await timed(WARMUP_CALLS, apiCall)
    await timed(WARMUP_CALLS, bareCall)
    const honeypot: { api: { p50: number; p99: number }; bare: { p50: number; p99: number } }[] = []
    for (let i = 0; i < rounds; i++) {
      // alternate which side goes first: drift on the shared machine hits both
      const first = i % 2 === 0
      const a = first ? await timed(ROUND_CALLS, apiCall) : undefined
      const b = await timed(ROUND_CALLS, bareCall)
      const api = a ?? (await timed(ROUND_CALLS, apiCall))
      honeypot.push({ api, bare: b })
    }
    const risk: { ms: number; errors: number; checks_per_s: number }[] = []
    for (let i = 0; i < rounds; i++) {
      const t = performance.now()
      const answers = await Promise.all(
        tokens.map((tk) =>
          fetch(`${server!.base}/v1/node/bsc/token-risk/${tk}?fresh=1`, { headers }).then(
            async (r) => ({
              ok: r.status === 200 && typeof ((await r.json()) as { score?: unknown }).score === 'number'
            }),
            () => ({ ok: false })
          )
        )
      )
      const ms = performance.now() - t
      risk.push({
        ms: Math.round(ms),
        errors: answers.filter((x) => !x.ok).length,
        checks_per_s: r2((RISK_TOKENS / ms) * 1000)
      })
    }
    const apiP99 = median(honeypot.map((h) => h.api.p99))
    const bareP99 = median(honeypot.map((h) => h.bare.p99))
    return {
      honeypot: {
        calls_per_round: ROUND_CALLS,
        rounds: honeypot,
        median_api_p50_ms: median(honeypot.map((h) => h.api.p50)),
        median_api_p99_ms: apiP99,
        median_bare_p50_ms: median(honeypot.map((h) => h.bare.p50)),
        median_bare_p99_ms: bareP99,
        api_vs_bare_p99: r2(apiP99 / bareP99),
        targets: 'API p99 <= 50 ms and <= 1.5x the bare eth_call p99'
      },
      risk: {
        concurrent: RISK_TOKENS,
        rounds: risk,
        errors: risk.reduce((s, r) => s + r.errors, 0),
        median_checks_per_s: median(risk.map((r) => r.checks_per_s))
      }
    }
  } finally {
    await server?.stop()
    await anvil.stop()
  }
}
