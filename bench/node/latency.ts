/**
 * @module
 * Sequential latency rounds of the node benchmark (bench/node/node.ts): one side (the API, or the bare
 * eth_call) called `n` times one at a time, with the latency percentiles and the CPU each process spent
 * per call: the benchmark process (the client), the server's main thread (API side only) and anvil (the
 * node, both sides). CPU per call is the steady figure on a shared machine; percentiles are not.
 */
import { Pool, type Dispatcher } from 'undici'
import { AnswerReader } from '../../engine/chain/raw-rpc.js'
import { mainThreadCpuMs } from '../http/cpu.js'
import { cpuSeconds } from '../history/measure.js'

export interface SideFigures {
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  /** the benchmark process (HTTP client), µs per call */
  readonly client_cpu_us: number
  /** the server's main thread, µs per call (null: the side has no server) */
  readonly server_cpu_us: number | null
  /** anvil (all its threads), µs per call */
  readonly node_cpu_us: number
}

export interface Pids {
  readonly node: number
  readonly server?: number
}

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
const r2 = (n: number): number => Math.round(n * 100) / 100

/** Calls `fn` `n` times one after the other; latency in ms, CPU in µs per call. */
export async function timed(n: number, fn: () => Promise<void>, pids: Pids): Promise<SideFigures> {
  const ms: number[] = []
  const c0 = process.cpuUsage()
  const s0 = pids.server === undefined ? 0 : mainThreadCpuMs(pids.server)
  const n0 = cpuSeconds(pids.node)
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await fn()
    ms.push(performance.now() - t)
  }
  const c = process.cpuUsage(c0)
  const server = pids.server === undefined ? null : r2(((mainThreadCpuMs(pids.server) - s0) * 1000) / n)
  const node = r2(((cpuSeconds(pids.node) - n0) * 1e6) / n)
  ms.sort((a, b) => a - b)
  return {
    p50: r2(pct(ms, 50)),
    p90: r2(pct(ms, 90)),
    p99: r2(pct(ms, 99)),
    max: r2(ms[ms.length - 1]!),
    client_cpu_us: r2((c.user + c.system) / n),
    server_cpu_us: server,
    node_cpu_us: node
  }
}

/**
 * The client both sides use: an undici pool of one kept-alive connection to `origin` (the server, or
 * anvil), answers read by a dispatch handler (engine/chain/raw-rpc.ts; no response stream), so the API and the
 * bare call pay the same, smallest client costs.
 */
export function benchClient(origin: string): {
  get(path: string, headers: Record<string, string>): Promise<{ status: number; text: string }>
  post(path: string, body: string | Buffer): Promise<{ status: number; text: string }>
  close(): Promise<void>
} {
  const pool = new Pool(origin, { connections: 1, pipelining: 1 })
  const send = (o: Dispatcher.DispatchOptions): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => pool.dispatch(o, new AnswerReader(resolve, reject)))
  const json = { 'content-type': 'application/json' }
  return {
    get: (path, headers) => send({ path, method: 'GET', headers }),
    post: (path, body) => send({ path, method: 'POST', headers: json, body }),
    close: () => pool.close()
  }
}
