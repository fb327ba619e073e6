/**
 * @module
 * Hot read endpoints against a bare uWebSockets.js server replying with the same bytes, same run,
 * alternating rounds, 64 connections from one wrk thread in its own process (load.ts):
 * `GET /v1/confirm?symbol=BTC&direction=long` and `GET /v1/options/chain` (enterprise key: counted, never
 * limited). The server runs the demo market with one day of history so the live state is realistic. Besides
 * req/s and p99 (wrk's `--latency` distribution), each round records the main thread's CPU per request of
 * the server measured (cpu.ts: what it spends, 1 / capacity, whichever side saturates first), wrk's own CPU
 * share (near 1: the generator was the limit) and the machine's 1-minute load average (the machine is shared).
 * With `BENCH_READ_PERF=1` (and `perf` on PATH) each round also samples both servers' main threads with
 * `perf` and splits their CPU per request by where it went (perf-split.ts): the request path's JavaScript,
 * uWS' native side, the socket and kernel, and the server's own timers and completions; and lists the main
 * thread's background slices (perf-stalls.ts: runs of work outside the request path, which every request in
 * flight waits for) by length and by what ran them.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { load, loadTool, type LoadResult } from './load.js'
import { mainThreadCpuMs, processCpuMs } from './cpu.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from './bench-server.js'
import { perfAvailable, perfRecord, perfSplit, type PerfGroup } from './perf-split.js'
import { perfStallsOf, type PerfStalls } from './perf-stalls.js'

const PORT = 19201
const BARE_PORT = 19202
/** unmeasured load before the rounds of each endpoint, s */
const WARMUP_SECONDS = 3

type Round = LoadResult & {
  readonly cpu_us_per_req: number
  /** the server's main thread (uWS and every handler) busy, share of one core over the round */
  readonly main_thread_share: number
  /** the server's other threads (store merges and inserts, workers, thread pool), cores over the round */
  readonly other_threads_cores: number
  readonly load_avg_1m: number
  /** CPU µs per request of the main thread by where it went (BENCH_READ_PERF=1 only) */
  readonly perf_us_per_req?: Record<PerfGroup, number>
  /** the main thread's background slices (perf-stalls.ts; BENCH_READ_PERF=1 only) */
  readonly stalls?: PerfStalls
}

type NumericField =
  'req_per_s' | 'p99_ms' | 'cpu_us_per_req' | 'main_thread_share' | 'other_threads_cores' | 'generator_cpu_share'

async function until(ok: () => Promise<boolean>): Promise<void> {
  while (!(await ok().catch(() => false))) await new Promise((r) => setTimeout(r, 100))
}

export async function readEndpoints(rounds: number, seconds: number): Promise<Record<string, unknown>> {
  const perf = process.env['BENCH_READ_PERF'] === '1' && perfAvailable()
  if (process.env['BENCH_READ_PERF'] === '1' && !perf) console.log('BENCH_READ_PERF=1: perf is not on PATH, no split')
  // JavaScript frames get names in perf's samples
  const nodeArgs = perf ? ['--perf-basic-prof'] : []
  const server = await startBenchServer(
    PORT,
    { SIM_BACKFILL_DAYS: '1' },
    (h) => h.sources[0]?.phase === 'live',
    undefined,
    { nodeArgs }
  )
  const { base, dir } = server
  const { key } = (await (
    await fetch(`${base}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_ADMIN}` },
      body: '{"plan":"enterprise"}'
    })
  ).json()) as { key: string }
  const headers = { 'x-api-key': key }
  const out: Record<string, unknown> = {}
  for (const [name, url] of [
    ['confirm', `${base}/v1/confirm?symbol=BTC&direction=long`],
    ['options_chain', `${base}/v1/options/chain?currency=BTC`]
  ] as const) {
    const body = await (await fetch(url, { headers })).text()
    const file = path.join(dir, `${name}.json`)
    fs.writeFileSync(file, body)
    const bare = spawn(
      process.execPath,
      [...nodeArgs, distPath('bench', 'http', 'bare-uws.js'), String(BARE_PORT), file],
      {
        stdio: 'ignore'
      }
    )
    await until(async () => (await fetch(`http://127.0.0.1:${BARE_PORT}/`)).ok)
    // warm-up, discarded: JIT compilation of the request path, and the first background merges of the
    // demo backfill, would otherwise land in the first measured round only
    await load(url, 64, WARMUP_SECONDS, headers)
    await load(`http://127.0.0.1:${BARE_PORT}/`, 64, WARMUP_SECONDS)
    const runs: { ours: Round[]; bare: Round[] } = { ours: [], bare: [] }
    for (let r = 0; r < rounds; r++) {
      for (const which of r % 2 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const)) {
        const pid = which === 'ours' ? server.pid : bare.pid!
        const cpu0 = mainThreadCpuMs(pid)
        const all0 = processCpuMs(pid)
        const t0 = performance.now()
        const perfFile = path.join(dir, `${name}-${which}-${r}.perf`)
        const recorded = perf ? perfRecord(pid, perfFile, seconds) : null
        const res =
          which === 'ours'
            ? await load(url, 64, seconds, headers)
            : await load(`http://127.0.0.1:${BARE_PORT}/`, 64, seconds)
        await recorded
        const wallMs = performance.now() - t0
        const mainMs = mainThreadCpuMs(pid) - cpu0
        const otherMs = processCpuMs(pid) - all0 - mainMs
        const cpuUs = Math.round((mainMs * 1000 * 100) / res.requests) / 100
        runs[which].push({
          ...res,
          cpu_us_per_req: cpuUs,
          main_thread_share: Math.round((mainMs / wallMs) * 100) / 100,
          other_threads_cores: Math.round((otherMs / wallMs) * 100) / 100,
          load_avg_1m: Math.round(os.loadavg()[0]! * 100) / 100,
          ...(perf && {
            perf_us_per_req: perfSplit(perfFile, res.requests),
            stalls: perfStallsOf(perfFile, seconds)
          })
        })
        const last = runs[which].at(-1)!
        console.log(
          `${name} round ${r + 1} ${which}: ${res.req_per_s} req/s p99 ${res.p99_ms} ms, main thread ${cpuUs} us/req (${last.main_thread_share} of a core), other threads ${last.other_threads_cores} cores, wrk ${res.generator_cpu_share} of a core, load ${last.load_avg_1m}`
        )
        if (last.perf_us_per_req) console.log(`  perf, us/req: ${JSON.stringify(last.perf_us_per_req)}`)
        if (last.stalls) console.log(`  background slices: ${JSON.stringify(last.stalls)}`)
      }
    }
    bare.kill('SIGTERM')
    await new Promise((r) => bare.once('exit', r))
    const med = (which: 'ours' | 'bare', k: NumericField): number => median(runs[which].map((x) => x[k]))
    const spread = (which: 'ours' | 'bare', k: NumericField): [number, number] => {
      const v = runs[which].map((x) => x[k])
      return [Math.min(...v), Math.max(...v)]
    }
    const loads = [...runs.ours, ...runs.bare].map((x) => x.load_avg_1m)
    /** median µs per request of each perf group over the rounds */
    const medPerf = (which: 'ours' | 'bare'): Record<string, number> => {
      const split = runs[which].map((x) => x.perf_us_per_req).filter((x) => x !== undefined)
      const groups = Object.keys(split[0] ?? {}) as PerfGroup[]
      return Object.fromEntries(groups.map((g) => [g, median(split.map((x) => x[g]))]))
    }
    const r2 = (x: number): number => Math.round(x * 100) / 100
    out[name] = {
      body_bytes: body.length,
      load_tool: loadTool(),
      median_req_per_s: { ours: med('ours', 'req_per_s'), bare_uws_same_body: med('bare', 'req_per_s') },
      ratio: r2(med('ours', 'req_per_s') / med('bare', 'req_per_s')),
      median_p99_ms: { ours: med('ours', 'p99_ms'), bare_uws_same_body: med('bare', 'p99_ms') },
      p99_vs_bare: r2(med('ours', 'p99_ms') / med('bare', 'p99_ms')),
      median_cpu_us_per_req: { ours: med('ours', 'cpu_us_per_req'), bare_uws_same_body: med('bare', 'cpu_us_per_req') },
      /** bare CPU / ours per request: the req/s ratio a CPU-bound server would reach */
      cpu_ratio: r2(med('bare', 'cpu_us_per_req') / med('ours', 'cpu_us_per_req')),
      /** where the cores went: the server's main thread, its other threads, wrk (medians of rounds) */
      median_cpu_split: {
        ours: {
          main_thread: med('ours', 'main_thread_share'),
          other_threads: med('ours', 'other_threads_cores'),
          wrk: med('ours', 'generator_cpu_share')
        },
        bare_uws_same_body: {
          main_thread: med('bare', 'main_thread_share'),
          other_threads: med('bare', 'other_threads_cores'),
          wrk: med('bare', 'generator_cpu_share')
        }
      },
      ...(perf && { median_perf_us_per_req: { ours: medPerf('ours'), bare_uws_same_body: medPerf('bare') } }),
      load_avg_1m: { min: Math.min(...loads), max: Math.max(...loads) },
      spread: {
        req_per_s: { ours: spread('ours', 'req_per_s'), bare: spread('bare', 'req_per_s') },
        p99_ms: { ours: spread('ours', 'p99_ms'), bare: spread('bare', 'p99_ms') },
        cpu_us_per_req: { ours: spread('ours', 'cpu_us_per_req'), bare: spread('bare', 'cpu_us_per_req') }
      },
      rounds: runs,
      errors: runs.ours.reduce((n, x) => n + x.errors + x.non2xx, 0),
      targets: { ratio: 0.8, p99_vs_bare: 1.25, cpu_ratio: 0.8 }
    }
  }
  await server.stop()
  return out
}
