/**
 * @module
 * `npm run bench -- replay`: replaying a recorded Binance aggTrade capture through the adapter,
 * normalizer and batcher into the store (parsing, normalizing and encoding in the replay's worker thread),
 * against the engine ceiling (the same trades as pre-built TSV through the same insert path) and the
 * in-thread path (`thread: 'main'`: every step on the main thread), in rotating rounds, each run in a fresh
 * process and data directory. Targets: replay >= 500,000 trades/s and >= 0.8x the ceiling.
 *
 * `BENCH_REPLAY_REF=<root of another built checkout>`: also runs that build's replay variant
 * (`<root>/dist/bench/replay/variant.js replay`, same capture) in the rotation as `replay_ref`, and reports
 * our replay's CPU per run against it round by round. CPU per run rises with the machine's load (the same
 * build measured 7.4 to 11.9 s per 2M trades on a loaded 2-core machine), so two builds compare only
 * within one run, alternating.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { median } from '../stats.js'
import { writeCapture } from './capture.js'

const TRADES = Number(process.env['BENCH_REPLAY_TRADES'] ?? 2_000_000)
const ENV = { ...process.env, TZ: 'UTC', UV_THREADPOOL_SIZE: '16' }
const REF_ROOT = process.env['BENCH_REPLAY_REF']

interface RunResult {
  rows: number
  rows_per_s: number
  trades_in_store: number
  /** share of the run the main thread's event loop was busy, 0..1 */
  main_thread_busy: number
  /** CPU time of the whole process (every thread, the engine's included), ms */
  cpu_ms: number
  /** the same over the timed part only (the ceiling builds its TSV before the clock starts), ms */
  timed_cpu_ms: number
}

function run(variant: string, capture: string): RunResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-replay-'))
  // replay_ref: the reference build's own variant script, run as its replay
  const script =
    variant === 'replay_ref'
      ? path.resolve(REF_ROOT!, 'dist', 'bench', 'replay', 'variant.js')
      : distPath('bench', 'replay', 'variant.js')
  try {
    const out = execFileSync(process.execPath, [script, variant === 'replay_ref' ? 'replay' : variant, dir, capture], {
      env: ENV,
      encoding: 'utf8'
    })
    return JSON.parse(out.trim().split('\n').at(-1)!) as RunResult
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export async function replayBench(rounds: number): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-capture-'))
  const capture = path.join(dir, 'binance-2026-10-01T00.ndjson.gz')
  try {
    await writeCapture(capture, TRADES)
    const variants = ['replay', ...(REF_ROOT ? ['replay_ref'] : []), 'ceiling', 'replay_main']
    // rotation units: the reference's replay runs next to ours (the two meet the same load), first every other round
    const units = [REF_ROOT ? ['replay', 'replay_ref'] : ['replay'], ['ceiling'], ['replay_main']]
    const perVariant = (): Record<string, number[]> => Object.fromEntries(variants.map((v) => [v, []]))
    const runs = perVariant()
    const ratios: number[] = []
    const busy = perVariant()
    const cpu = perVariant()
    const timedCpu = perVariant()
    const cpuRatios: number[] = []
    /** our replay's timed CPU over the reference build's, per round (1 = the same; > 1 = ours costs more) */
    const refCpuRatios: number[] = []
    for (let r = 0; r < rounds; r++) {
      const order = units.flatMap((_, i) => {
        const unit = units[(i + r) % units.length]!
        return r % 2 ? [...unit].reverse() : unit
      })
      for (const v of order) {
        const res = run(v, capture)
        if (res.trades_in_store !== TRADES) throw new Error(`${v} stored ${res.trades_in_store} of ${TRADES} trades`)
        runs[v]!.push(res.rows_per_s)
        busy[v]!.push(res.main_thread_busy)
        cpu[v]!.push(res.cpu_ms)
        timedCpu[v]!.push(res.timed_cpu_ms)
        console.log(
          `replay round ${r + 1} ${v}: ${res.rows_per_s} trades/s, main thread busy ${res.main_thread_busy}, CPU ${res.cpu_ms} ms (timed part ${res.timed_cpu_ms} ms)`
        )
      }
      ratios.push(Math.round((runs['replay']![r]! / runs['ceiling']![r]!) * 100) / 100)
      // CPU per trade of the engine alone over that of the whole replay (1 = the replay costs no more)
      cpuRatios.push(Math.round((timedCpu['ceiling']![r]! / timedCpu['replay']![r]!) * 100) / 100)
      if (REF_ROOT) refCpuRatios.push(Math.round((timedCpu['replay']![r]! / timedCpu['replay_ref']![r]!) * 100) / 100)
    }
    const replay = median(runs['replay']!)
    const ceiling = median(runs['ceiling']!)
    const inThread = median(runs['replay_main']!)
    return {
      trades_per_run: TRADES,
      capture_bytes: fs.statSync(capture).size,
      dataset: 'recorded-format Binance aggTrade capture, 50 USDT perpetuals, gzipped NDJSON, seed 42',
      runs_trades_per_s: runs,
      median_trades_per_s: {
        replay,
        ceiling,
        replay_main: inThread,
        ...(REF_ROOT && { replay_ref: median(runs['replay_ref']!) })
      },
      replay_vs_ceiling: Math.round((replay / ceiling) * 100) / 100,
      replay_vs_ceiling_per_round: ratios,
      replay_vs_in_thread: Math.round((replay / inThread) * 100) / 100,
      median_main_thread_busy: Object.fromEntries(Object.entries(busy).map(([k, xs]) => [k, median(xs)])),
      median_cpu_ms: Object.fromEntries(Object.entries(cpu).map(([k, xs]) => [k, median(xs)])),
      median_timed_cpu_ms: Object.fromEntries(Object.entries(timedCpu).map(([k, xs]) => [k, median(xs)])),
      ceiling_cpu_vs_replay_cpu_per_round: cpuRatios,
      ...(REF_ROOT && {
        reference_build: REF_ROOT,
        replay_cpu_vs_reference_per_round: refCpuRatios,
        replay_cpu_vs_reference: median(refCpuRatios)
      }),
      targets: { replay_trades_per_s: 500_000, replay_vs_ceiling: 0.8 }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
