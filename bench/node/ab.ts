/**
 * @module
 * Two builds' honeypot check through the API, side by side (`npm run bench -- node-ab`, docs/node-intel.md
 * "Where the CPU goes"): this build's server and another built checkout's (`BENCH_NODE_REF`, required) on one
 * anvil with the same environment as bench/node/node.ts's `api` side, `GET /v1/node/bsc/honeypot/{token}?fresh=1`
 * one at a time, in `BENCH_NODE_AB_ROUNDS` (20) rounds of `BENCH_NODE_CALLS` (200) calls per build, the
 * build going first alternating from round to round. Short alternating rounds put both builds under the same
 * load on a shared machine: per round each build's p50, p99 and its server's main-thread CPU µs per check,
 * then the medians and the rounds where this build spent less.
 */
import path from 'node:path'
import { parseEther } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { startAnvil } from './evm/anvil.js'
import { deployNodeIntelFixtures, nodeIntelServerEnv } from './evm/nodeintel-fixtures.js'
import { benchClient, timed, type SideFigures } from './latency.js'

const PORT = 19261
const CALLS = Number(process.env['BENCH_NODE_CALLS'] ?? 200)
const ROUNDS = Number(process.env['BENCH_NODE_AB_ROUNDS'] ?? 20)
const REF_ROOT = process.env['BENCH_NODE_REF']
const WARMUP_CALLS = 300

export async function nodeAbBench(): Promise<Record<string, unknown>> {
  if (!REF_ROOT) throw new Error('node-ab needs BENCH_NODE_REF: the root of another built checkout')
  const anvil = await startAnvil({ chainId: 56 })
  const servers: { stop(): Promise<void> }[] = []
  const clients: { close(): Promise<void> }[] = []
  try {
    const fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
    const env = nodeIntelServerEnv(anvil.url, fx)
    const side = async (port: number, script?: string) => {
      const server = await startBenchServer(port, env, undefined, undefined, script ? { script } : {})
      servers.push(server)
      const created = await fetch(`${server.base}/v1/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'enterprise', name: 'bench-node-ab' })
      })
      const headers = { 'x-api-key': ((await created.json()) as { key: string }).key }
      const client = benchClient(server.base)
      clients.push(client)
      const call = async (): Promise<void> => {
        const res = await client.get(`/v1/node/bsc/honeypot/${fx.tokens.clean}?fresh=1`, headers)
        const b = JSON.parse(res.text) as { verdict?: string; method?: string }
        if (res.status !== 200 || b.verdict !== 'ok' || b.method !== 'simulate_v1_wallet')
          throw new Error(`honeypot answered ${res.status} ${res.text.slice(0, 200)}`)
      }
      const pids = { node: anvil.pid, server: server.pid }
      return { run: (n: number) => timed(n, call, pids) }
    }
    const builds = {
      api: await side(PORT),
      api_ref: await side(PORT + 1, path.join(REF_ROOT, 'dist', 'server', 'main.js'))
    }
    await builds.api.run(WARMUP_CALLS)
    await builds.api_ref.run(WARMUP_CALLS)
    const rounds: { api: SideFigures; api_ref: SideFigures }[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? (['api', 'api_ref'] as const) : (['api_ref', 'api'] as const)
      const got: Partial<Record<'api' | 'api_ref', SideFigures>> = {}
      for (const b of order) got[b] = await builds[b].run(CALLS)
      rounds.push(got as { api: SideFigures; api_ref: SideFigures })
    }
    const med = (b: 'api' | 'api_ref', f: (s: SideFigures) => number): number => median(rounds.map((r) => f(r[b])))
    return {
      ref: REF_ROOT,
      calls_per_round: CALLS,
      rounds: rounds.map((r) => ({
        api: [r.api.p50, r.api.p99, r.api.server_cpu_us],
        api_ref: [r.api_ref.p50, r.api_ref.p99, r.api_ref.server_cpu_us]
      })),
      rounds_legend: '[p50 ms, p99 ms, server main-thread CPU µs per check]',
      median: Object.fromEntries(
        (['api', 'api_ref'] as const).map((b) => [
          b,
          { p50: med(b, (s) => s.p50), p99: med(b, (s) => s.p99), server_cpu_us: med(b, (s) => s.server_cpu_us!) }
        ])
      ),
      rounds_api_cpu_lower: rounds.filter((r) => r.api.server_cpu_us! < r.api_ref.server_cpu_us!).length,
      rounds_api_p50_lower: rounds.filter((r) => r.api.p50 < r.api_ref.p50).length
    }
  } finally {
    for (const c of clients) await c.close()
    for (const s of servers) await s.stop()
    await anvil.stop()
  }
}
