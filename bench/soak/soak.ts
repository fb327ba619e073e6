/**
 * @module
 * Memory soak (`npm run bench -- soak`, docs/benchmarks.md "Soak"): the built server on the demo market
 * (SOURCES=sim, a 1-day backfill, live data arriving) under a steady mixed load on loopback for
 * BENCH_SOAK_MINUTES (default 60):
 * - keyed reads: BENCH_SOAK_READS_PER_S (default 20) GETs over the main read endpoints in turn;
 * - BENCH_SOAK_SUBSCRIBERS (default 200) WebSocket subscribers on /v1/stream, 3 channels each over 10;
 * - a registered webhook (every event, every symbol) with an HTTPS receiver in its own process, fed
 *   BENCH_SOAK_WEBHOOK_PER_S (default 2) signal events per second through the admin API, besides the
 *   signals the demo market fires itself.
 * BENCH_SOAK_LOAD (comma list of reads, subscribers, webhooks; `idle` for none) runs a part of the load
 * alone, to see which part moves memory. Every BENCH_SOAK_SAMPLE_S (default 10) s: the server's RSS
 * (VmRSS, and its anonymous part), threads, JS heap, pending webhooks, and chDB's tracked memory and
 * cache bytes (health's store.engine_memory_mb). Reported: least-squares RSS slope (MB/min) over the first 10 minutes and over the last 30 (the
 * last half when the run is shorter), RSS at start and end, heap at start and end; the run levels off when
 * the last-window slope is at most LEVEL_OFF_MB_PER_MIN. Extra server env (MALLOC_ARENA_MAX, ...) passes
 * through from the bench's environment.
 */
import { fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { makeBenchTls } from '../webhooks/tls.js'
import { startReads, startSubscribers, startWebhookEvents, type LoadPart } from './load.js'
import { sample, slope, type SoakSample } from './sample.js'

const num = (name: string, def: number): number => {
  const v = Number(process.env[name] ?? def)
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a non-negative number`)
  return v
}

const MINUTES = num('BENCH_SOAK_MINUTES', 60)
const READS_PER_S = num('BENCH_SOAK_READS_PER_S', 20)
const SUBSCRIBERS = num('BENCH_SOAK_SUBSCRIBERS', 200)
const WEBHOOK_PER_S = num('BENCH_SOAK_WEBHOOK_PER_S', 2)
const SAMPLE_S = num('BENCH_SOAK_SAMPLE_S', 10)
const PARTS = (process.env['BENCH_SOAK_LOAD'] ?? 'reads,subscribers,webhooks').split(',').map((s) => s.trim())
/** Level-off criterion: RSS slope over the last window at most this, MB/min. */
export const LEVEL_OFF_MB_PER_MIN = 1
/** Length of the first and last windows the slope is reported over, minutes. */
const FIRST_WINDOW = 10
const LAST_WINDOW = 30
const PORT = 19_231

function startReceiver(dir: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = fork(distPath('bench', 'webhooks', 'receiver.js'), [dir], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  return new Promise((resolve, reject) => {
    proc.once('message', (m: { port: number }) => resolve({ proc, port: m.port }))
    proc.once('exit', (code) => reject(new Error(`receiver exited ${code}`)))
  })
}

function receiverCount(proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    proc.once('message', (m: { count: number }) => resolve(m.count))
    proc.send({ cmd: 'count' })
  })
}

async function post(url: string, auth: Record<string, string>, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
  const out = (await res.json()) as Record<string, unknown>
  if (!res.ok) throw new Error(`soak: POST ${url} answered ${res.status}: ${JSON.stringify(out)}`)
  return out
}

export async function soakBench(): Promise<Record<string, unknown>> {
  const tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-soak-tls-'))
  makeBenchTls(tlsDir)
  const receiver = await startReceiver(tlsDir)
  const server = await startBenchServer(
    PORT,
    {
      SOURCES: 'sim',
      SIM_BACKFILL_DAYS: process.env['SIM_BACKFILL_DAYS'] ?? '1',
      UV_THREADPOOL_SIZE: process.env['UV_THREADPOOL_SIZE'] ?? '16',
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: path.join(tlsDir, 'ca.pem')
    },
    (h) => h.sources[0]?.phase === 'live'
  )
  const parts: LoadPart[] = []
  const named: Record<string, LoadPart> = {}
  const samples: SoakSample[] = []
  try {
    const { base, pid } = server
    const admin = { authorization: `Bearer ${BENCH_ADMIN}` }
    const { key } = (await post(`${base}/v1/admin/keys`, admin, { plan: 'enterprise' })) as { key: string }
    if (PARTS.includes('webhooks')) {
      await post(
        `${base}/v1/webhooks`,
        { 'x-api-key': key },
        {
          url: `https://127.0.0.1:${receiver.port}/fast`,
          events: ['*'],
          symbols: ['*'],
          secret: 'soak-secret-0123456789abcdef'
        }
      )
      named['webhooks'] = startWebhookEvents(base, BENCH_ADMIN, WEBHOOK_PER_S)
    }
    if (PARTS.includes('subscribers'))
      named['subscribers'] = await startSubscribers(base.replace('http:', 'ws:'), key, SUBSCRIBERS)
    if (PARTS.includes('reads')) named['reads'] = startReads(base, key, READS_PER_S)
    parts.push(...Object.values(named))
    console.log(
      `soak: load ${Object.keys(named).join(', ') || 'idle (live ingest only)'} for ${MINUTES} min, pid ${pid}, MALLOC_ARENA_MAX=${process.env['MALLOC_ARENA_MAX'] ?? 'unset'}`
    )
    const t0 = performance.now()
    const end = t0 + MINUTES * 60_000
    for (;;) {
      const s = await sample(pid, base, t0)
      samples.push(s)
      console.log(
        `soak t=${s.t_min.toFixed(1)} min: rss ${s.rss_mb} MB (anon ${s.rss_anon_mb}), heap ${s.heap_used_mb} MB (committed ${s.heap_total_mb}, external ${s.external_mb}), threads ${s.threads}, chDB tracked ${s.engine_tracked_mb} MB, caches ${s.engine_caches_mb} MB, webhooks pending ${s.webhooks_pending}`
      )
      if (performance.now() >= end) break
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_S * 1000, Math.max(0, end - performance.now()))))
    }
    const counts = Object.fromEntries(Object.entries(named).map(([k, p]) => [k, p.counts()]))
    counts['receiver'] = { received: await receiverCount(receiver.proc) }
    const health = (await (await fetch(`${base}/v1/health`)).json()) as Record<string, unknown>
    const lastFrom = Math.max(MINUTES - LAST_WINDOW, MINUTES / 2)
    const first = samples[0]!
    const last = samples.at(-1)!
    const lastSlope = slope(samples, 'rss_mb', lastFrom, MINUTES)
    return {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} cores, node ${process.version}`,
      minutes: MINUTES,
      load: {
        parts: Object.keys(named),
        reads_per_s: READS_PER_S,
        subscribers: SUBSCRIBERS,
        webhook_events_per_s: WEBHOOK_PER_S,
        malloc_arena_max: process.env['MALLOC_ARENA_MAX'] ?? null
      },
      rss_mb: { start: first.rss_mb, end: last.rss_mb, max: Math.max(...samples.map((s) => s.rss_mb)) },
      heap_used_mb: { start: first.heap_used_mb, end: last.heap_used_mb },
      heap_total_mb: { start: first.heap_total_mb, end: last.heap_total_mb },
      external_mb: { start: first.external_mb, end: last.external_mb },
      engine_tracked_mb: { start: first.engine_tracked_mb, end: last.engine_tracked_mb },
      engine_caches_mb: { start: first.engine_caches_mb, end: last.engine_caches_mb },
      rss_slope_mb_per_min: {
        [`first_${Math.min(FIRST_WINDOW, MINUTES)}_min`]: slope(samples, 'rss_mb', 0, Math.min(FIRST_WINDOW, MINUTES)),
        [`last_${Math.round(MINUTES - lastFrom)}_min`]: lastSlope
      },
      anon_slope_mb_per_min_last: slope(samples, 'rss_anon_mb', lastFrom, MINUTES),
      heap_slope_mb_per_min_last: slope(samples, 'heap_used_mb', lastFrom, MINUTES),
      heap_total_slope_mb_per_min_last: slope(samples, 'heap_total_mb', lastFrom, MINUTES),
      engine_tracked_slope_mb_per_min_last: slope(samples, 'engine_tracked_mb', lastFrom, MINUTES),
      level_off: { criterion_mb_per_min: LEVEL_OFF_MB_PER_MIN, met: lastSlope <= LEVEL_OFF_MB_PER_MIN },
      counts,
      webhooks: health['webhooks'] ?? null,
      samples
    }
  } finally {
    for (const p of parts) await p.stop()
    await server.stop()
    receiver.proc.kill('SIGTERM')
    fs.rmSync(tlsDir, { recursive: true, force: true })
  }
}
