/**
 * @module
 * Node intelligence benchmark (`npm run bench -- node`, docs/node-intel.md), against a local anvil node
 * (chain id 56) holding the fixture tokens and 100 more listed tokens, with the built server in its own
 * process (BSC_RPC_URL = anvil, SOURCES=none):
 *
 * - honeypot latency: GET /v1/node/bsc/honeypot/{token}?fresh=1 (cache bypassed: every request runs the
 *   wallet simulation, `method: simulate_v1_wallet`) one at a time, against the bare `eth_simulateV1` of the
 *   same simulation: the JSON-RPC body viem writes for the server's request (same head, plan, router, amount
 *   and gas price) POSTed straight to anvil. Both sides use the same client (an undici pool, one kept-alive
 *   connection: bench/node/latency.ts). Also measured: the head read plus that body (`bare_head`: both
 *   requests of a check whose head read is not reused), the simulation through viem's http transport
 *   (`bare_viem`: the request's params through viem's `request`, fetch; the server sends it through the lean client,
 *   engine/chain/raw-rpc.ts), the probe contract's bare `eth_call` (`bare_probe`: the method of nodes
 *   without eth_simulateV1), and the structural floor: the smallest server forwarding the simulation's body
 *   (bench/node/forwarder.ts), its calls split into the way in, the node's leg and the way out
 *   (bench/node/phases.ts). Over anvil's WebSocket (same port): the bare request (`bare_ws`, engine/chain/ws-rpc.ts),
 *   the floor forwarding over it (`floor_ws`) and the API of a second server given it as BSC_WS_URL (`api_ws`).
 *   With BENCH_NODE_REF (the root of another checkout, built) the API of that build's server runs as one
 *   more side (`api_ref`, same env as `api`): the two builds alternate within each round.
 *   Rounds of ROUND_CALLS calls per side, the order rotating; per round p50/p90/p99 per side, the p99 and
 *   p50 ratios, and CPU µs per call of the client, the server's main thread and anvil.
 *   Targets: API p99 <= 50 ms and <= 1.5x the bare call's p99, in every round.
 * - 100 concurrent risk checks of distinct tokens (GET /v1/node/bsc/token-risk/{token}?fresh=1, all sent at
 *   once): errors (target 0) and checks/s, per round.
 */
import path from 'node:path'
import { parseEther, type Address } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { WsRpc } from '../../engine/chain/ws-rpc.js'
import { probeCall } from '../../engine/nodeintel/probe.js'
import { walletRequest } from '../../engine/nodeintel/wallet-sim.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { startAnvil } from './evm/anvil.js'
import { deployNodeIntelFixtures, nodeIntelServerEnv } from './evm/nodeintel-fixtures.js'
import { addLiquidityEth, deployContract } from './evm/uniswap.js'
import { benchClient, timed, type SideFigures } from './latency.js'
import { phases, type CallStamps, type PhaseFigures } from './phases.js'
import { startForwarder } from './floor.js'
import { viemBody, walletSimBody } from './sim-body.js'

const PORT = 19241
/** sequential calls per side per round */
const ROUND_CALLS = Number(process.env['BENCH_NODE_CALLS'] ?? 300)
/** concurrent risk checks (distinct tokens) */
const RISK_TOKENS = 100
const WARMUP_CALLS = 200
/** another build to compare the API with, same run (the root of its checkout; unset: none) */
const REF_ROOT = process.env['BENCH_NODE_REF']

const r2 = (n: number): number => Math.round(n * 100) / 100

interface HoneypotRound {
  readonly order: string
  readonly api: SideFigures
  readonly bare: SideFigures
  readonly bare_viem: SideFigures
  /** the head read, then the simulation's body: the two requests of a check, bare */
  readonly bare_head: SideFigures
  /** the probe contract's eth_call, bare (nodes without eth_simulateV1) */
  readonly bare_probe: SideFigures
  /** the smallest forwarding server (bench/node/forwarder.ts) */
  readonly floor: SideFigures
  /** the simulation's request over one persistent WebSocket to anvil (engine/chain/ws-rpc.ts), bare */
  readonly bare_ws: SideFigures
  /** the smallest forwarding server, sending to anvil over its WebSocket */
  readonly floor_ws: SideFigures
  /** the API of a server given anvil's WebSocket as BSC_WS_URL (its simulations go over it) */
  readonly api_ws: SideFigures
  /** the floors' calls split into the way in, the node's leg and the way out (bench/node/phases.ts) */
  readonly floor_phases: PhaseFigures
  readonly floor_ws_phases: PhaseFigures
  readonly p99_ratio: number
  readonly p50_ratio: number
  /** the floor's own p99 against the bare call: what the extra HTTP hop alone costs */
  readonly floor_p99_ratio: number
  /** the same over WebSocket: floor_ws against bare_ws */
  readonly floor_ws_p99_ratio: number
  /** api_ws against the bare call over http, and against the bare call over WebSocket */
  readonly api_ws_p99_ratio: number
  readonly api_ws_p99_ratio_ws: number
  /** the reference build's API (BENCH_NODE_REF), and its p99 against the bare call */
  readonly api_ref?: SideFigures
  readonly api_ref_p99_ratio?: number
}

export async function nodeBench(rounds: number): Promise<Record<string, unknown>> {
  const anvil = await startAnvil({ chainId: 56 })
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined
  let serverWs: Awaited<ReturnType<typeof startBenchServer>> | undefined
  let serverRef: Awaited<ReturnType<typeof startBenchServer>> | undefined
  const clients: { close(): Promise<void> }[] = []
  const forwarders: { readonly pid: number; stop(): void }[] = []
  try {
    const fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
    const plain = fx.compiled['PlainToken']!
    const tokens: Address[] = []
    for (let i = 0; i < RISK_TOKENS; i++) {
      const t = await deployContract(fx.uni, plain.abi, plain.bytecode, [`Bench${i}`, `B${i}`, parseEther('1000000')])
      await addLiquidityEth(fx.uni, t, parseEther('100000'), parseEther('10'), { tokenAbi: plain.abi })
      tokens.push(t)
    }
    const serverEnv = nodeIntelServerEnv(anvil.url, fx)
    server = await startBenchServer(PORT, serverEnv)
    // the same server with anvil's WebSocket (same port) as BSC_WS_URL
    serverWs = await startBenchServer(PORT + 3, { ...serverEnv, BSC_WS_URL: anvil.url.replace(/^http/, 'ws') })
    const keyOf = async (base: string): Promise<string> => {
      const created = await fetch(`${base}/v1/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'enterprise', name: 'bench-node' })
      })
      return ((await created.json()) as { key: string }).key
    }
    const headers = { 'x-api-key': await keyOf(server.base) }
    const headersWs = { 'x-api-key': await keyOf(serverWs.base) }
    if (REF_ROOT)
      serverRef = await startBenchServer(PORT + 4, serverEnv, undefined, undefined, {
        script: path.join(REF_ROOT, 'dist', 'server', 'main.js')
      })
    const headersRef: Record<string, string> = serverRef ? { 'x-api-key': await keyOf(serverRef.base) } : {}
    const token = fx.tokens.clean
    const toServer = benchClient(server.base)
    const toServerWs = benchClient(serverWs.base)
    const toNode = benchClient(anvil.url)
    const toServerRef = serverRef ? benchClient(serverRef.base) : null
    clients.push(toServer, toServerWs, toNode, ...(toServerRef ? [toServerRef] : []))
    const apiPath = `/v1/node/bsc/honeypot/${token}?fresh=1`
    const apiOf = (client: typeof toServer, h: Record<string, string>) => async (): Promise<void> => {
      const res = await client.get(apiPath, h)
      const b = JSON.parse(res.text) as { verdict?: string; method?: string }
      if (res.status !== 200 || b.verdict !== 'ok' || b.method !== 'simulate_v1_wallet')
        throw new Error(`honeypot answered ${res.status} ${res.text.slice(0, 200)}`)
    }
    const apiCall = apiOf(toServer, headers)
    const apiWsCall = apiOf(toServerWs, headersWs)
    const apiRefCall = toServerRef ? apiOf(toServerRef, headersRef) : null
    const { viem, input, sim, body } = await walletSimBody(anvil.url, fx, token)
    const probeBody = await viemBody('eth_call', (c) => c.call(probeCall({ ...input, token })))
    const headBody = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] })
    )
    const bareCall = async (): Promise<void> => {
      const res = await toNode.post('/', body)
      const r = JSON.parse(res.text) as { result?: { calls: unknown[] }[] }
      if (res.status !== 200 || r.result?.length !== 5) throw new Error('bare simulation returned no blocks')
    }
    const bareHeadCall = async (): Promise<void> => {
      const h = await toNode.post('/', headBody)
      if (h.status !== 200 || !(JSON.parse(h.text) as { result?: unknown }).result) throw new Error('no head')
      await bareCall()
    }
    const bareProbeCall = async (): Promise<void> => {
      const res = await toNode.post('/', probeBody)
      const r = JSON.parse(res.text) as { result?: string }
      if (res.status !== 200 || !r.result || r.result === '0x') throw new Error('bare probe returned nothing')
    }
    // the same request over anvil's WebSocket (the same port): bare, and behind the smallest forwarder
    const wsUrl = anvil.url.replace(/^http/, 'ws')
    const toNodeWs = new WsRpc(wsUrl, 5_000)
    clients.push(toNodeWs)
    const simRequest = JSON.parse(body.toString('utf8')) as { method: string; params: unknown[] }
    const bareWsCall = async (): Promise<void> => {
      const r = await toNodeWs.call<unknown[]>(simRequest.method, simRequest.params)
      if (r?.length !== 5) throw new Error('bare simulation (ws) returned no blocks')
    }
    const floor = await startForwarder(anvil.url, PORT + 1, body)
    const floorWs = await startForwarder(wsUrl, PORT + 2, body)
    forwarders.push(floor, floorWs)
    const floorSide = (port: number) => {
      const client = benchClient(`http://127.0.0.1:${port}`)
      clients.push(client)
      const stamps: CallStamps[] = []
      const call = async (): Promise<void> => {
        const sent = process.hrtime.bigint()
        const res = await client.get('/', {})
        const done = process.hrtime.bigint()
        const a = JSON.parse(res.text) as { ok?: boolean; t_in: string; t_out: string }
        if (res.status !== 200 || !a.ok) throw new Error(`floor (${port}): no result`)
        stamps.push({ sent, in: BigInt(a.t_in), out: BigInt(a.t_out), done })
      }
      /** the phases of the calls since the last take */
      const take = (): PhaseFigures => phases(stamps.splice(0))
      return { call, take }
    }
    const floorHttp = floorSide(PORT + 1)
    const floorWsSide = floorSide(PORT + 2)
    const viemCall = async (): Promise<void> => {
      const r = await viem.request({ method: 'eth_simulateV1', params: walletRequest(sim) as never })
      if (!Array.isArray(r) || r.length !== 5) throw new Error('bare simulation (viem) returned nothing')
    }
    const pids = { node: anvil.pid }
    const sides = {
      api: () => timed(ROUND_CALLS, apiCall, { ...pids, server: server!.pid }),
      bare: () => timed(ROUND_CALLS, bareCall, pids),
      bare_viem: () => timed(ROUND_CALLS, viemCall, pids),
      bare_head: () => timed(ROUND_CALLS, bareHeadCall, pids),
      bare_probe: () => timed(ROUND_CALLS, bareProbeCall, pids),
      floor: () => timed(ROUND_CALLS, floorHttp.call, { ...pids, server: floor.pid }),
      bare_ws: () => timed(ROUND_CALLS, bareWsCall, pids),
      floor_ws: () => timed(ROUND_CALLS, floorWsSide.call, { ...pids, server: floorWs.pid }),
      api_ws: () => timed(ROUND_CALLS, apiWsCall, { ...pids, server: serverWs!.pid }),
      api_ref: () => timed(ROUND_CALLS, apiRefCall!, { ...pids, server: serverRef!.pid })
    }
    for (const fn of [apiCall, apiWsCall, bareCall, viemCall, floorHttp.call, bareHeadCall, bareProbeCall, bareWsCall])
      await timed(WARMUP_CALLS, fn, pids)
    await timed(WARMUP_CALLS, floorWsSide.call, pids)
    if (apiRefCall) await timed(WARMUP_CALLS, apiRefCall, pids)
    floorHttp.take()
    floorWsSide.take()
    const honeypot: HoneypotRound[] = []
    type Side = keyof typeof sides
    // the reference build's API runs right after this build's (they alternate as the order rotates)
    const names: readonly Side[] = [
      'api',
      ...(apiRefCall ? (['api_ref'] as const) : []),
      'bare',
      'floor',
      'api_ws',
      'bare_ws',
      'floor_ws',
      'bare_viem',
      'bare_head',
      'bare_probe'
    ]
    for (let i = 0; i < rounds; i++) {
      // rotate which side goes first: drift on the shared machine hits every side
      const order = names.map((_, k) => names[(i + k) % names.length]!)
      const got: Partial<Record<Side, SideFigures>> = {}
      for (const n of order) got[n] = await sides[n]()
      const f = got as Record<Side, SideFigures>
      const ref = got.api_ref
      honeypot.push({
        ...(ref ? { api_ref: ref, api_ref_p99_ratio: r2(ref.p99 / f.bare.p99) } : {}),
        order: order.join(','),
        api: f.api,
        bare: f.bare,
        bare_viem: f.bare_viem,
        bare_head: f.bare_head,
        bare_probe: f.bare_probe,
        floor: f.floor,
        bare_ws: f.bare_ws,
        floor_ws: f.floor_ws,
        api_ws: f.api_ws,
        floor_phases: floorHttp.take(),
        floor_ws_phases: floorWsSide.take(),
        p99_ratio: r2(f.api.p99 / f.bare.p99),
        p50_ratio: r2(f.api.p50 / f.bare.p50),
        floor_p99_ratio: r2(f.floor.p99 / f.bare.p99),
        floor_ws_p99_ratio: r2(f.floor_ws.p99 / f.bare_ws.p99),
        api_ws_p99_ratio: r2(f.api_ws.p99 / f.bare.p99),
        api_ws_p99_ratio_ws: r2(f.api_ws.p99 / f.bare_ws.p99)
      })
    }
    const risk: { ms: number; errors: number; checks_per_s: number; first_error: string | null }[] = []
    for (let i = 0; i < rounds; i++) {
      const t = performance.now()
      const answers = await Promise.all(
        tokens.map((tk) =>
          fetch(`${server!.base}/v1/node/bsc/token-risk/${tk}?fresh=1`, { headers }).then(
            async (r) => {
              const text = await r.text()
              const ok = r.status === 200 && typeof (JSON.parse(text) as { score?: unknown }).score === 'number'
              return { ok, why: ok ? null : `${r.status} ${text.slice(0, 300)}` }
            },
            (err: unknown) => ({ ok: false, why: String(err) })
          )
        )
      )
      const ms = performance.now() - t
      risk.push({
        ms: Math.round(ms),
        errors: answers.filter((x) => !x.ok).length,
        checks_per_s: r2((RISK_TOKENS / ms) * 1000),
        first_error: answers.find((x) => !x.ok)?.why ?? null
      })
    }
    const med = (f: (h: HoneypotRound) => number): number => median(honeypot.map(f))
    return {
      honeypot: {
        calls_per_round: ROUND_CALLS,
        rounds: honeypot,
        p99_ratios: honeypot.map((h) => h.p99_ratio),
        rounds_within_1_5x: honeypot.filter((h) => h.p99_ratio <= 1.5).length,
        median_api_p50_ms: med((h) => h.api.p50),
        median_api_p99_ms: med((h) => h.api.p99),
        median_bare_p50_ms: med((h) => h.bare.p50),
        median_bare_p99_ms: med((h) => h.bare.p99),
        median_bare_viem_p99_ms: med((h) => h.bare_viem.p99),
        median_bare_head_p50_ms: med((h) => h.bare_head.p50),
        median_bare_head_p99_ms: med((h) => h.bare_head.p99),
        median_bare_probe_p50_ms: med((h) => h.bare_probe.p50),
        median_bare_probe_p99_ms: med((h) => h.bare_probe.p99),
        median_floor_p50_ms: med((h) => h.floor.p50),
        median_floor_p99_ms: med((h) => h.floor.p99),
        floor_p99_ratios: honeypot.map((h) => h.floor_p99_ratio),
        median_bare_ws_p50_ms: med((h) => h.bare_ws.p50),
        median_bare_ws_p99_ms: med((h) => h.bare_ws.p99),
        median_floor_ws_p50_ms: med((h) => h.floor_ws.p50),
        median_floor_ws_p99_ms: med((h) => h.floor_ws.p99),
        floor_ws_p99_ratios: honeypot.map((h) => h.floor_ws_p99_ratio),
        median_api_ws_p50_ms: med((h) => h.api_ws.p50),
        median_api_ws_p99_ms: med((h) => h.api_ws.p99),
        api_ws_p99_ratios: honeypot.map((h) => h.api_ws_p99_ratio),
        api_ws_p99_ratios_ws: honeypot.map((h) => h.api_ws_p99_ratio_ws),
        median_p99_ratio: med((h) => h.p99_ratio),
        ...(serverRef
          ? {
              ref: REF_ROOT,
              median_api_ref_p50_ms: med((h) => h.api_ref!.p50),
              median_api_ref_p99_ms: med((h) => h.api_ref!.p99),
              api_ref_p99_ratios: honeypot.map((h) => h.api_ref_p99_ratio!),
              median_api_ref_server_cpu_us: med((h) => h.api_ref!.server_cpu_us ?? Number.NaN)
            }
          : {}),
        median_cpu_us_per_call: {
          api_client: med((h) => h.api.client_cpu_us),
          api_server: med((h) => h.api.server_cpu_us ?? Number.NaN),
          api_ws_server: med((h) => h.api_ws.server_cpu_us ?? Number.NaN),
          floor_server: med((h) => h.floor.server_cpu_us ?? Number.NaN),
          floor_ws_server: med((h) => h.floor_ws.server_cpu_us ?? Number.NaN),
          api_node: med((h) => h.api.node_cpu_us),
          bare_client: med((h) => h.bare.client_cpu_us),
          bare_node: med((h) => h.bare.node_cpu_us),
          bare_viem_client: med((h) => h.bare_viem.client_cpu_us)
        },
        targets: 'API p99 <= 50 ms and <= 1.5x the bare eth_simulateV1 p99 (same body, same client), every round'
      },
      risk: {
        concurrent: RISK_TOKENS,
        rounds: risk,
        errors: risk.reduce((s, r) => s + r.errors, 0),
        median_checks_per_s: median(risk.map((r) => r.checks_per_s))
      }
    }
  } finally {
    for (const c of clients) await c.close()
    for (const f of forwarders) f.stop()
    await server?.stop()
    await serverWs?.stop()
    await serverRef?.stop()
    await anvil.stop()
  }
}
