/**
 * @module
 * Two builds' honeypot check through the API, side by side (`npm run bench -- node-ab`, docs/node-intel.md
 * "Where the CPU goes"): this build's server and another built checkout's (`BENCH_NODE_REF`, required) on one
 * anvil with the same environment as bench/node/node.ts's `api` side, `GET /v1/node/bsc/honeypot/{token}?fresh=1`
 * one at a time, in `BENCH_NODE_AB_ROUNDS` (20) rounds of `BENCH_NODE_CALLS` (200) calls per build, the
 * side going first rotating from round to round. Each round also runs the bare simulation (`bare`: its body
 * POSTed to anvil, bench/node/sim-body.ts) and the floor (`floor`: the smallest forwarding server,
 * bench/node/forwarder.ts), so each build's p99 is read against the bare p99 of its own round, and against
 * the floor's (what the server adds beyond the extra hop). `BENCH_NODE_AB_ARGS` / `BENCH_NODE_AB_REF_ARGS`:
 * node options for this build's / the other build's server (space-separated, e.g. `--max-semi-space-size=32`).
 * `BENCH_NODE_AB_GC=1` starts both servers with `--trace-gc` and counts, per round, each one's collections
 * and their pause ms per 1,000 checks (`gc`). `BENCH_NODE_AB_PIN=1` pins anvil (all its threads) to the first
 * core and every other process of the run (this one, both servers, the floor) to the second (`taskset`), so
 * the node and the processes around it do not take each other's core (docs/benchmarks.md, Node
 * intelligence: on 2 cores it slows the bare call more than it helps the API). Short alternating rounds put all sides under the same load on a
 * shared machine: per round each side's p50, p99 and its server's main-thread CPU µs per check, then the
 * medians and the rounds where this build did better.
 */
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { parseEther } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { startAnvil } from './evm/anvil.js'
import { deployNodeIntelFixtures, nodeIntelServerEnv } from './evm/nodeintel-fixtures.js'
import { startForwarder } from './floor.js'
import { benchClient, timed, type SideFigures } from './latency.js'
import { walletSimBody } from './sim-body.js'

const PORT = 19261
const CALLS = Number(process.env['BENCH_NODE_CALLS'] ?? 200)
const ROUNDS = Number(process.env['BENCH_NODE_AB_ROUNDS'] ?? 20)
const REF_ROOT = process.env['BENCH_NODE_REF']
const WARMUP_CALLS = 300
const argsOf = (name: string): string[] => (process.env[name] ?? '').split(' ').filter((a) => a !== '')
const API_ARGS = argsOf('BENCH_NODE_AB_ARGS')
const REF_ARGS = argsOf('BENCH_NODE_AB_REF_ARGS')
const TRACE_GC = process.env['BENCH_NODE_AB_GC'] === '1'
const PIN = process.env['BENCH_NODE_AB_PIN'] === '1'
/** every thread of process `pid` on the cores `cpus` (taskset's list form, e.g. `0` or `0-1`) */
const pin = (pid: number, cpus: string): void => {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' })
}
const SIDES = ['api', 'api_ref', 'bare', 'floor'] as const
type Side = (typeof SIDES)[number]
type Gc = [collections: number, major: number, pauseMs: number]
/** `--trace-gc`'s line: `... ms: Scavenge 5.2 (6.0) -> 4.5 (7.0) MB, 0.85 / 0.00 ms ...` */
const GC_LINE = /: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact)\b.*?MB, ([\d.]+) \/ [\d.]+ ms/
const r2 = (n: number): number => Math.round(n * 100) / 100

export async function nodeAbBench(): Promise<Record<string, unknown>> {
  if (!REF_ROOT) throw new Error('node-ab needs BENCH_NODE_REF: the root of another built checkout')
  const anvil = await startAnvil({ chainId: 56 })
  const servers: { stop(): Promise<void> }[] = []
  const clients: { close(): Promise<void> }[] = []
  const forwarders: { stop(): void }[] = []
  try {
    const fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
    const env = nodeIntelServerEnv(anvil.url, fx)
    const side = async (port: number, nodeArgs: string[], script?: string) => {
      // the server's collections since the last take: count, of them mark-compacts, pause ms
      const tally: Gc = [0, 0, 0]
      const onStdoutLine = (line: string): void => {
        const m = GC_LINE.exec(line)
        if (!m) return
        tally[0]++
        if (m[1] !== 'Scavenge') tally[1]++
        tally[2] += Number(m[2])
      }
      const server = await startBenchServer(port, env, undefined, undefined, {
        nodeArgs: TRACE_GC ? ['--trace-gc', ...nodeArgs] : nodeArgs,
        ...(TRACE_GC ? { onStdoutLine } : {}),
        ...(script ? { script } : {})
      })
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
      /** the collections since the last take, per 1,000 checks of `n` */
      const takeGc = (n: number): Gc => {
        const got = tally.map((v) => r2((v * 1000) / n)) as Gc
        tally.fill(0)
        return got
      }
      return { run: (n: number) => timed(n, call, pids), takeGc, pid: server.pid }
    }
    const { body } = await walletSimBody(anvil.url, fx, fx.tokens.clean)
    const toNode = benchClient(anvil.url)
    clients.push(toNode)
    const bareCall = async (): Promise<void> => {
      const res = await toNode.post('/', body)
      const r = JSON.parse(res.text) as { result?: unknown[] }
      if (res.status !== 200 || r.result?.length !== 5) throw new Error('bare simulation returned no blocks')
    }
    const floor = await startForwarder(anvil.url, PORT + 2, body)
    forwarders.push(floor)
    const toFloor = benchClient(`http://127.0.0.1:${PORT + 2}`)
    clients.push(toFloor)
    const floorCall = async (): Promise<void> => {
      const res = await toFloor.get('/', {})
      if (res.status !== 200 || !(JSON.parse(res.text) as { ok?: boolean }).ok) throw new Error('floor: no result')
    }
    const api = await side(PORT, API_ARGS)
    const apiRef = await side(PORT + 1, REF_ARGS, path.join(REF_ROOT, 'dist', 'server', 'main.js'))
    const sides: Record<Side, (n: number) => Promise<SideFigures>> = {
      api: api.run,
      api_ref: apiRef.run,
      bare: (n) => timed(n, bareCall, { node: anvil.pid }),
      floor: (n) => timed(n, floorCall, { node: anvil.pid, server: floor.pid })
    }
    if (PIN) {
      pin(anvil.pid, '0')
      for (const pid of [process.pid, api.pid, apiRef.pid, floor.pid]) pin(pid, '1')
    }
    for (const s of SIDES) await sides[s](WARMUP_CALLS)
    api.takeGc(1)
    apiRef.takeGc(1)
    type Round = Record<Side, SideFigures>
    const rounds: Round[] = []
    const gcRounds: { api: Gc; api_ref: Gc }[] = []
    for (let i = 0; i < ROUNDS; i++) {
      // rotate which side goes first: drift on the shared machine hits every side
      const got: Partial<Round> = {}
      for (let k = 0; k < SIDES.length; k++) {
        const s = SIDES[(i + k) % SIDES.length]!
        got[s] = await sides[s](CALLS)
      }
      rounds.push(got as Round)
      gcRounds.push({ api: api.takeGc(CALLS), api_ref: apiRef.takeGc(CALLS) })
    }
    const med = (f: (r: Round) => number): number => r2(median(rounds.map(f)))
    const range = (f: (r: Round) => number): [number, number] => {
      const v = rounds.map(f)
      return [r2(Math.min(...v)), r2(Math.max(...v))]
    }
    const ratio = (b: Side) => (r: Round) => r[b].p99 / r.bare.p99
    const overFloor = (b: Side) => (r: Round) => r[b].p99 - r.floor.p99
    return {
      ref: REF_ROOT,
      api_node_args: API_ARGS,
      api_ref_node_args: REF_ARGS,
      calls_per_round: CALLS,
      pinned: PIN,
      rounds: rounds.map((r, i) => ({
        ...Object.fromEntries(SIDES.map((s) => [s, [r[s].p50, r[s].p99, r[s].server_cpu_us]])),
        p99_ratio: [r2(ratio('api')(r)), r2(ratio('api_ref')(r)), r2(ratio('floor')(r))],
        ...(TRACE_GC ? { gc: gcRounds[i] } : {})
      })),
      rounds_legend:
        'per side [p50 ms, p99 ms, server main-thread CPU µs per check]; p99_ratio: api, api_ref, floor p99 / bare p99;' +
        ' gc: per build [collections, of them major, pause ms] per 1,000 checks',
      median: Object.fromEntries(
        SIDES.map((b) => [
          b,
          { p50: med((r) => r[b].p50), p99: med((r) => r[b].p99), server_cpu_us: med((r) => r[b].server_cpu_us ?? 0) }
        ])
      ),
      ...(TRACE_GC
        ? {
            gc_median: Object.fromEntries(
              (['api', 'api_ref'] as const).map((b) => [
                b,
                [0, 1, 2].map((j) => r2(median(gcRounds.map((g) => g[b][j]!))))
              ])
            )
          }
        : {}),
      p99_ratio_to_bare: Object.fromEntries(
        (['api', 'api_ref', 'floor'] as const).map((b) => [b, { median: med(ratio(b)), range: range(ratio(b)) }])
      ),
      /** the server's own part of the p99: the API's p99 minus the floor's, ms */
      p99_over_floor_ms: Object.fromEntries(
        (['api', 'api_ref'] as const).map((b) => [b, { median: med(overFloor(b)), range: range(overFloor(b)) }])
      ),
      rounds_within_1_5x: {
        api: rounds.filter((r) => ratio('api')(r) <= 1.5).length,
        api_ref: rounds.filter((r) => ratio('api_ref')(r) <= 1.5).length
      },
      rounds_api_cpu_lower: rounds.filter((r) => r.api.server_cpu_us! < r.api_ref.server_cpu_us!).length,
      rounds_api_p50_lower: rounds.filter((r) => r.api.p50 < r.api_ref.p50).length,
      rounds_api_p99_lower: rounds.filter((r) => r.api.p99 < r.api_ref.p99).length
    }
  } finally {
    for (const c of clients) await c.close()
    for (const s of servers) await s.stop()
    for (const f of forwarders) f.stop()
    await anvil.stop()
  }
}
