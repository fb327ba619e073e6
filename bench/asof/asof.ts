/**
 * @module
 * `npm run bench -- asof`: point-in-time answers against the live answers of the same endpoints, same run,
 * alternating rounds, 64 connections from the load generator of bench/http/load.ts (wrk when installed,
 * else autocannon), on the demo market with BENCH_ASOF_DAYS (default 31) days of history:
 * - p99 of `as_of` answers (one moment an hour back, settled, so kept by the answer cache) vs the live
 *   answer, for /v1/confirm, /v1/derivatives/screener, /v1/whales/summary, /v1/onchain/metrics;
 * - a cold `as_of` answer (a different moment each request, nothing cached), median and worst of a
 *   sequence, beside the live answer's single-request time;
 * - `confirmSeries` over 30 days at 1 h (720 steps) for BTC, in this process on the server's data dir
 *   after the server stopped (the engine of /v1/confirm/history): the first run on the store just opened
 *   (cold) apart, then the median of the next runs; its reference, same run: `confirmAt`
 *   (one load per step) at every 30th step, its time per step times 720, and whether its answers equal
 *   the series' to the byte.
 */
import fs from 'node:fs'
import os from 'node:os'
import { load, loadTool, type LoadResult } from '../http/load.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { median } from '../stats.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { confirmAt, confirmSeries } from '../../engine/asof/confirm-at.js'
import type { ConfirmResult } from '../../engine/confirm/confirm.js'

const PORT = 19211
const HOUR = 3_600_000
const DAYS = Number(process.env['BENCH_ASOF_DAYS'] ?? 31)

const PATHS = {
  confirm: '/v1/confirm?symbol=BTC&direction=long',
  screener: '/v1/derivatives/screener',
  whales_summary: '/v1/whales/summary',
  onchain_metrics: '/v1/onchain/metrics?asset=BTC'
} as const

const withAsOf = (p: string, at: number): string => `${p}${p.includes('?') ? '&' : '?'}as_of=${at}`

export async function asofBench(rounds: number, seconds: number): Promise<Record<string, unknown>> {
  const started = Date.now()
  const server = await startBenchServer(
    PORT,
    { SIM_BACKFILL_DAYS: String(DAYS) },
    (h) => h.sources[0]?.phase === 'live',
    undefined,
    { keepDir: true }
  )
  const backfillS = Math.round((Date.now() - started) / 1000)
  const { base, dir } = server
  const { key } = (await (
    await fetch(`${base}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_ADMIN}` },
      body: '{"plan":"enterprise"}'
    })
  ).json()) as { key: string }
  const headers = { 'x-api-key': key }
  const at = Date.now() - HOUR
  const out: Record<string, unknown> = { load_tool: loadTool(), backfill_days: DAYS, backfill_s: backfillS }
  const endpoints: Record<string, unknown> = {}
  for (const [name, p] of Object.entries(PATHS)) {
    const live = `${base}${p}`
    const past = `${base}${withAsOf(p, at)}`
    // warm-up, discarded (JIT, the first as_of computation)
    await load(live, 64, 2, headers)
    await load(past, 64, 2, headers)
    const runs: { live: LoadResult[]; as_of: LoadResult[] } = { live: [], as_of: [] }
    for (let r = 0; r < rounds; r++) {
      for (const which of r % 2 ? (['as_of', 'live'] as const) : (['live', 'as_of'] as const)) {
        runs[which].push(await load(which === 'live' ? live : past, 64, seconds, headers))
      }
    }
    // cold: a different moment each request (minutes apart over the last 30 days), nothing cached
    const cold: number[] = []
    const single: number[] = []
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      const res = await fetch(`${base}${withAsOf(p, at - (i + 1) * 36 * HOUR - i * 60_000)}`, { headers })
      await res.arrayBuffer()
      cold.push(performance.now() - t0)
      const t1 = performance.now()
      await (await fetch(live, { headers })).arrayBuffer()
      single.push(performance.now() - t1)
    }
    const p99 = (xs: LoadResult[]): number => median(xs.map((x) => x.p99_ms))
    endpoints[name] = {
      live_p99_ms: p99(runs.live),
      as_of_p99_ms: p99(runs.as_of),
      p99_ratio: Math.round((p99(runs.as_of) / p99(runs.live)) * 100) / 100,
      live_req_per_s: median(runs.live.map((x) => x.req_per_s)),
      as_of_req_per_s: median(runs.as_of.map((x) => x.req_per_s)),
      non2xx: [...runs.live, ...runs.as_of].reduce((n, x) => n + x.non2xx + x.errors, 0),
      cold_as_of_ms: { median: Math.round(median(cold)), max: Math.round(Math.max(...cold)) },
      single_live_ms: { median: Math.round(median(single) * 10) / 10 },
      runs
    }
    console.log(`asof ${name}: ${JSON.stringify(endpoints[name], (k, v) => (k === 'runs' ? undefined : v))}`)
  }
  out['endpoints'] = endpoints
  const end = Math.floor(Date.now() / HOUR) * HOUR - HOUR
  await server.stop()
  // confirmSeries over 30 days at 1 h on the same data, in this process
  const store = new ChdbStore({ path: dir, poolSize: 2 })
  try {
    const steps = Array.from({ length: 720 }, (_, i) => end - (719 - i) * HOUR)
    const times: number[] = []
    // the first run reads a store just opened (its tables' parts and marks first loaded, the JIT cold):
    // reported apart, as the HTTP figures' warm-up is discarded
    const c0 = performance.now()
    let series: ConfirmResult[] = await confirmSeries(store, 'BTC', 'long', steps)
    const coldMs = performance.now() - c0
    for (let r = 0; r < Math.max(3, rounds); r++) {
      const t0 = performance.now()
      series = await confirmSeries(store, 'BTC', 'long', steps)
      times.push(performance.now() - t0)
    }
    // reference, same run: the per-step path (one load per step) at every 30th step, and its answers
    const sample = steps.map((_, i) => i).filter((i) => i % 30 === 0)
    let same = 0
    const t1 = performance.now()
    for (const i of sample) {
      const at = await confirmAt(store, 'BTC', 'long', { asOfMs: steps[i]!, knownByMs: steps[i]! })
      if (JSON.stringify(at) === JSON.stringify(series[i])) same++
    }
    const perStepMs = (performance.now() - t1) / sample.length
    out['confirm_series_30d_1h'] = {
      steps: series.length,
      cold_ms: Math.round(coldMs),
      ms: times.map((x) => Math.round(x)),
      median_ms: Math.round(median(times)),
      per_step_confirm_at_ms: Math.round(perStepMs * 10) / 10,
      per_step_x720_ms: Math.round(perStepMs * 720),
      sampled_steps_equal: `${same}/${sample.length}`
    }
  } finally {
    await store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  out['loadavg'] = os.loadavg().map((x) => Math.round(x * 100) / 100)
  return out
}
