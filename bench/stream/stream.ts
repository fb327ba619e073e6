/**
 * @module
 * Push-stream benchmark (docs/stream.md): Tidewatch's /v1/stream against a bare uWebSockets.js pub/sub server,
 * same client process (`ws`), same frame shape, alternating rounds in one run. Per subscriber count:
 * - latency: LATENCY_MSGS publishes, one every LATENCY_INTERVAL_MS, to N subscribers of one channel;
 *   p50/p99 of publish-to-receive over every delivery;
 * - throughput: a burst of publishes as fast as the server takes them; delivered frames per second at the
 *   client (first to last receive);
 * - memory: server RSS growth per connection after N idle subscribed connections, and the JS heap they
 *   retain (heap in use after full collections, before and after connecting, per connection).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { distPath } from '../../engine/paths.js'
import { benchChild, type BenchChild } from '../child.js'
import { median } from '../stats.js'

const LATENCY_MSGS = 40
const LATENCY_INTERVAL_MS = 50
/** burst sizes keep every socket far below the 1 MiB slow-consumer limit (~150 B frames) */
const BURST: Record<number, number> = { 1_000: 300, 10_000: 60 }

type Msg = Record<string, unknown>

function child(file: string, args: string[] = [], execArgv: string[] = []): BenchChild {
  const proc = fork(distPath('bench', 'stream', file), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv
  })
  return benchChild(proc, file)
}

async function waitCount(client: ReturnType<typeof child>, want: number, timeoutMs: number): Promise<Msg> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    client.proc.send({ cmd: 'report' })
    const r = await client.next('count')
    if ((r['count'] as number) >= want || Date.now() > deadline) return r
    await new Promise((res) => setTimeout(res, 250))
  }
}

interface RoundResult {
  p50_ms: number
  p99_ms: number
  delivered_latency: number
  msgs_per_s: number
  delivered_burst: number
  rss_per_conn_kb: number
  heap_per_conn_kb: number
  connect_ms: number
}

async function round(kind: 'bare' | 'tidewatch', n: number): Promise<RoundResult> {
  const server = child('stream-server.js', [kind], ['--expose-gc'])
  const ready = await server.next('ready')
  const client = child('stream-client.js')
  await client.next('ready')
  try {
    server.proc.send({ cmd: 'rss' })
    const rss0 = (await server.next('rss'))['rss'] as number
    server.proc.send({ cmd: 'heap' })
    const heap0 = (await server.next('heap'))['heap'] as number
    const url = `ws://127.0.0.1:${ready['port'] as number}/${kind === 'bare' ? '' : 'v1/stream'}`
    client.proc.send({ cmd: 'connect', url, n, keys: ready['keys'], subscribe: kind === 'tidewatch' })
    const conn = await client.next('connected')
    await new Promise((r) => setTimeout(r, 1_000))
    server.proc.send({ cmd: 'rss' })
    const rss1 = (await server.next('rss'))['rss'] as number
    server.proc.send({ cmd: 'heap' })
    const heap1 = (await server.next('heap'))['heap'] as number
    client.proc.send({ cmd: 'reset' })
    await client.next('reset')
    server.proc.send({ cmd: 'publish', count: LATENCY_MSGS, intervalMs: LATENCY_INTERVAL_MS })
    await server.next('published')
    const lat = await waitCount(client, LATENCY_MSGS * n, 30_000)
    client.proc.send({ cmd: 'reset' })
    await client.next('reset')
    const burst = BURST[n] ?? 100
    server.proc.send({ cmd: 'publish', count: burst, intervalMs: 0 })
    await server.next('published')
    const thr = await waitCount(client, burst * n, 60_000)
    const span = ((thr['last'] as number) - (thr['first'] as number)) / 1000
    return {
      p50_ms: Math.round((lat['p50'] as number) * 100) / 100,
      p99_ms: Math.round((lat['p99'] as number) * 100) / 100,
      delivered_latency: (lat['count'] as number) / (LATENCY_MSGS * n),
      msgs_per_s: Math.round((thr['count'] as number) / span),
      delivered_burst: (thr['count'] as number) / (burst * n),
      rss_per_conn_kb: Math.round(((rss1 - rss0) / n / 1024) * 10) / 10,
      heap_per_conn_kb: Math.round(((heap1 - heap0) / n / 1024) * 100) / 100,
      connect_ms: conn['ms'] as number
    }
  } finally {
    client.proc.send({ cmd: 'close' })
    server.proc.send({ cmd: 'stop' })
    await Promise.all(
      [client, server].map((c) => new Promise((r) => (c.proc.exitCode !== null ? r(0) : c.proc.once('exit', r))))
    )
  }
}

export async function streamBench(rounds: number): Promise<Record<string, unknown>> {
  const counts = (process.env['BENCH_STREAM_SUBS'] ?? '1000,10000').split(',').map(Number)
  const out: Record<string, unknown> = {}
  for (const n of counts) {
    const runs: Record<'bare' | 'tidewatch', RoundResult[]> = { bare: [], tidewatch: [] }
    for (let r = 0; r < rounds; r++) {
      for (const kind of r % 2 ? (['tidewatch', 'bare'] as const) : (['bare', 'tidewatch'] as const)) {
        const res = await round(kind, n)
        runs[kind].push(res)
        console.log(`stream ${n} subs round ${r + 1} ${kind}: ${JSON.stringify(res)}`)
      }
    }
    const med = (kind: 'bare' | 'tidewatch', k: keyof RoundResult): number => median(runs[kind].map((x) => x[k]))
    const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100
    out[`subs_${n}`] = {
      runs,
      median: {
        bare: {
          p50_ms: med('bare', 'p50_ms'),
          p99_ms: med('bare', 'p99_ms'),
          msgs_per_s: med('bare', 'msgs_per_s'),
          rss_per_conn_kb: med('bare', 'rss_per_conn_kb'),
          heap_per_conn_kb: med('bare', 'heap_per_conn_kb')
        },
        tidewatch: {
          p50_ms: med('tidewatch', 'p50_ms'),
          p99_ms: med('tidewatch', 'p99_ms'),
          msgs_per_s: med('tidewatch', 'msgs_per_s'),
          rss_per_conn_kb: med('tidewatch', 'rss_per_conn_kb'),
          heap_per_conn_kb: med('tidewatch', 'heap_per_conn_kb')
        }
      },
      rss_per_conn_kb_above_bare:
        Math.round((med('tidewatch', 'rss_per_conn_kb') - med('bare', 'rss_per_conn_kb')) * 10) / 10,
      p99_vs_bare: ratio(med('tidewatch', 'p99_ms'), med('bare', 'p99_ms')),
      msgs_per_s_vs_bare: ratio(med('tidewatch', 'msgs_per_s'), med('bare', 'msgs_per_s')),
      targets: { p99_vs_bare_max: 1.25, msgs_per_s_vs_bare_min: 0.8, rss_per_conn_kb_above_bare_max: 2 }
    }
  }
  return out
}
