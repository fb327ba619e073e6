/**
 * @module
 * The steady group of `npm run bench`: time to backfill BENCH_STEADY_DAYS of the demo market on first
 * start, then RSS and event-loop lag p99 from /v1/health over the first live windows.
 */
import fs from 'node:fs'
import { distPath } from '../../engine/paths.js'
import { tmp } from '../run-settings.js'
import { serverEnv, spawnReady, stopChild } from '../server-process.js'

const STEADY_DAYS = Number(process.env['BENCH_STEADY_DAYS'] ?? 30)
/** Live windows sampled after the backfill (each health window is 10 s). */
const STEADY_WINDOWS = 5

async function health(port: number): Promise<Record<string, any>> {
  return (await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json()) as Record<string, any>
}

export async function steady(): Promise<Record<string, unknown>> {
  const dir = tmp()
  const env = { ...serverEnv(dir, 19184), SOURCES: 'sim', SIM_BACKFILL_DAYS: String(STEADY_DAYS) }
  const t0 = performance.now()
  const child = await spawnReady([distPath('server', 'main.js')], env, /listening/)
  let h = await health(19184)
  while (h['sources'][0].phase !== 'live') {
    await new Promise((r) => setTimeout(r, 250))
    h = await health(19184)
  }
  const backfillMs = Math.round(performance.now() - t0)
  const rows = h['ingest'].written as number
  const samples: { rss_mb: number; p99: number; max: number }[] = []
  for (let i = 0; i < STEADY_WINDOWS; i++) {
    await new Promise((r) => setTimeout(r, 10_500))
    const p = (await health(19184))['process']
    samples.push({ rss_mb: p.rss_mb, p99: p.event_loop_delay_ms.p99, max: p.event_loop_delay_ms.max })
    console.log(`steady window ${i + 1}: rss ${p.rss_mb} MB, loop p99 ${p.event_loop_delay_ms.p99} ms`)
  }
  await stopChild(child)
  fs.rmSync(dir, { recursive: true, force: true })
  return {
    backfill_days: STEADY_DAYS,
    backfill_rows: rows,
    backfill_ms: backfillMs,
    live_windows: samples,
    max_rss_mb: Math.max(...samples.map((s) => s.rss_mb)),
    // the first window spans the switch from backfill to live (live-state rebuild, catch-up): reported apart
    transition_loop_p99_ms: samples[0]!.p99,
    max_loop_p99_ms: Math.max(...samples.slice(1).map((s) => s.p99)),
    targets: { backfill_ms: 60_000, rss_mb: 1536, loop_p99_ms: 20 }
  }
}
