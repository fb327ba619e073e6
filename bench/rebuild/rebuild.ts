/**
 * @module
 * `npm run bench -- rebuild`: live-state rebuild time with 0.1M, 1M and 5M trades of the last 24 hours in
 * the store, a producer writing live trades meanwhile (bench/rebuild/variant.ts, one fresh process and data
 * directory per run). The figure is the ratio of the median rebuild at 5M to the one at 0.1M, measured in
 * the same run (target: within 2x).
 *
 * `BENCH_REBUILD_BASELINE=<dir>`: also runs `<dir>/bench/rebuild/variant.js` (the same variant built against
 * another tree, e.g. an earlier commit) at every size, alternating with ours, and reports it beside.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { UNIVERSE } from '../../ingest/sources/sim/universe.js'

const SIZES = (process.env['BENCH_REBUILD_SIZES'] ?? '100000,1000000,5000000').split(',').map(Number)
/** timed rebuilds per run (after one warm-up) */
const REBUILDS = Number(process.env['BENCH_REBUILD_COUNT'] ?? 7)
const BASELINE = process.env['BENCH_REBUILD_BASELINE']
const ENV = { ...process.env, TZ: 'UTC', UV_THREADPOOL_SIZE: '16' }

interface RunResult {
  trades: number
  trades_in_store: number
  produced: number
  load_ms: number
  rebuild_ms: number[]
  drain_ms: number[]
  median_rebuild_ms: number
  median_drain_ms: number
  rebuild_errors: number
}

function run(script: string, trades: number): RunResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-rebuild-'))
  try {
    const out = execFileSync(process.execPath, [script, dir, String(trades), String(REBUILDS)], {
      env: ENV,
      encoding: 'utf8',
      maxBuffer: 16 * 2 ** 20
    })
    return JSON.parse(out.trim().split('\n').at(-1)!) as RunResult
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100

export async function rebuildBench(): Promise<Record<string, unknown>> {
  const variants: Record<string, string> = { ours: distPath('bench', 'rebuild', 'variant.js') }
  if (BASELINE) variants['baseline'] = path.resolve(BASELINE, 'bench', 'rebuild', 'variant.js')
  const runs: Record<string, RunResult[]> = {}
  for (const [i, trades] of SIZES.entries()) {
    const names = Object.keys(variants)
    // alternate which variant goes first, size by size
    for (const name of i % 2 ? names.reverse() : names) {
      const r = run(variants[name]!, trades)
      ;(runs[name] ??= []).push(r)
      console.log(
        `rebuild ${name} ${trades} trades: median ${r.median_rebuild_ms} ms (drain ${r.median_drain_ms} ms), runs ${r.rebuild_ms.join(' ')}`
      )
    }
  }
  const summary = Object.fromEntries(
    Object.entries(runs).map(([name, rs]) => {
      const first = rs[0]!.median_rebuild_ms
      const last = rs.at(-1)!.median_rebuild_ms
      return [
        name,
        {
          median_rebuild_ms: Object.fromEntries(rs.map((r) => [r.trades, r.median_rebuild_ms])),
          median_drain_ms: Object.fromEntries(rs.map((r) => [r.trades, r.median_drain_ms])),
          /** median rebuild at the largest size / at the smallest (5M / 0.1M by default) */
          ratio_largest_vs_smallest: ratio(last, first)
        }
      ]
    })
  )
  return {
    dataset: `the demo market's ${UNIVERSE.markets.length} perpetual markets, trades over the last 24 h, hourly funding/OI/long-short; producer 2,000 live trades/s through the pipeline (server defaults)`,
    rebuilds_per_run: REBUILDS,
    runs,
    ...summary,
    target: { ratio_max: 2 }
  }
}
