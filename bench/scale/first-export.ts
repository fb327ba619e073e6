/**
 * @module
 * `node dist/bench/run.js first-export`: the first export after a restart, with and without a setting,
 * on copies of one filled data dir. Each round restarts the built server (`SOURCES=none`) on a fresh copy
 * (`cp -a`: every start finds the same parts, outdated ones included) once per variant, the variants'
 * order alternating round by round; per start: spawn to `listening` and to `ready: serving data`, the
 * server's CPU seconds from spawn to idle (its start-up and background work), then the export of every
 * base's 1m candles over the window (Parquet), its rows/s and server CPU seconds by thread, and a second
 * export for reference.
 *
 * Environment: BENCH_FIRST_EXPORT_DIR (required: a data dir filled by the demo backfill with
 * `bench-fill.json` beside its data, `{"fromMs","toMs","markets"}`: the backfill's whole hours and
 * SIM_MARKETS, null for all; the scale bench keeps such dirs with BENCH_SCALE_KEEP), BENCH_FIRST_EXPORT_A
 * and BENCH_FIRST_EXPORT_B (the variants' extra server environment as JSON, default `{}`),
 * BENCH_FIRST_EXPORT_PAIRS (rounds, default 3). Results in bench/results/first-export.json.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { limitMarkets, UNIVERSE } from '../../ingest/sources/sim/universe.js'
import { quiet } from '../history/realistic-export.js'
import { cpuSeconds, round } from '../history/measure.js'
import { exportRun, type FixedWindow } from './reads.js'
import { enterpriseKey } from '../http/bench-server.js'
import { spawnScaleServer } from './scale-server.js'
import { med } from './size-run.js'

/** longest wait for a start to be ready, ms */
const WAIT_MS = 600_000

interface Start {
  readonly variant: 'A' | 'B'
  readonly listening_ms: number
  readonly ready_ms: number
  /** seconds from ready until the server was idle (30: it never was) */
  readonly quiet_s: number
  /** the server's CPU seconds from spawn to idle */
  readonly start_cpu_s: number
  readonly first: Awaited<ReturnType<typeof exportRun>>
  readonly second: Awaited<ReturnType<typeof exportRun>>
}

function envJson(name: string): Record<string, string> {
  const v = process.env[name]
  return v ? (JSON.parse(v) as Record<string, string>) : {}
}

async function oneStart(
  variant: 'A' | 'B',
  filled: string,
  work: string,
  env: Record<string, string>,
  window: FixedWindow,
  bases: readonly string[]
): Promise<Start> {
  const dir = path.join(work, 'copy')
  fs.rmSync(dir, { recursive: true, force: true })
  execFileSync('cp', ['-a', filled, dir])
  const server = spawnScaleServer(dir, 18_981, { SOURCES: 'none', ...env })
  try {
    const listening = Math.round((await server.line('listening', WAIT_MS)).atMs)
    const ready = Math.round((await server.line('ready: serving data', WAIT_MS)).atMs)
    const quietS = await quiet(server.pid)
    const startCpuS = round(cpuSeconds(server.pid))
    const key = await enterpriseKey(server.base)
    const file = path.join(work, 'export.parquet')
    const first = await exportRun(server.base, key, server.pid, bases, window, file)
    const second = await exportRun(server.base, key, server.pid, bases, window, file)
    const s = {
      variant,
      listening_ms: listening,
      ready_ms: ready,
      quiet_s: quietS,
      start_cpu_s: startCpuS,
      first,
      second
    }
    console.log(`first-export ${variant}: ${JSON.stringify(s)}`)
    return s
  } finally {
    await server.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const summary = (starts: readonly Start[]) => ({
  listening_ms: med(starts.map((s) => s.listening_ms)),
  ready_ms: med(starts.map((s) => s.ready_ms)),
  start_cpu_s: med(starts.map((s) => s.start_cpu_s)),
  first_rows_per_s: med(starts.map((s) => s.first.rows_per_s)),
  first_server_cpu_s: med(starts.map((s) => s.first.server_cpu_s)),
  second_rows_per_s: med(starts.map((s) => s.second.rows_per_s)),
  second_server_cpu_s: med(starts.map((s) => s.second.server_cpu_s)),
  runs: starts
})

export async function firstExportBench(): Promise<Record<string, unknown>> {
  const filled = process.env['BENCH_FIRST_EXPORT_DIR']
  if (!filled) throw new Error('BENCH_FIRST_EXPORT_DIR must name a filled data dir')
  const fill = JSON.parse(fs.readFileSync(path.join(filled, 'bench-fill.json'), 'utf8')) as FixedWindow & {
    markets: number | null
  }
  const window = { fromMs: fill.fromMs, toMs: fill.toMs }
  const pairs = Number(process.env['BENCH_FIRST_EXPORT_PAIRS'] ?? '3')
  const envs = { A: envJson('BENCH_FIRST_EXPORT_A'), B: envJson('BENCH_FIRST_EXPORT_B') }
  const universe = fill.markets === null ? UNIVERSE : limitMarkets(UNIVERSE, fill.markets)
  const bases = [...new Set(universe.markets.map((m) => m.base))]
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-first-'))
  const loadAtStart = os.loadavg().map(round)
  const starts: Start[] = []
  try {
    for (let r = 0; r < pairs; r++) {
      const order: ('A' | 'B')[] = r % 2 === 0 ? ['A', 'B'] : ['B', 'A']
      for (const v of order) starts.push(await oneStart(v, filled, work, envs[v], window, bases))
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  const a = summary(starts.filter((s) => s.variant === 'A'))
  const b = summary(starts.filter((s) => s.variant === 'B'))
  return {
    load_average_at_start: loadAtStart,
    load_average_at_end: os.loadavg().map(round),
    window,
    variants: envs,
    A: a,
    B: b,
    b_over_a: {
      first_rows_per_s: round(b.first_rows_per_s / a.first_rows_per_s),
      first_server_cpu_s: round(b.first_server_cpu_s / a.first_server_cpu_s),
      ready_ms: round(b.ready_ms / a.ready_ms)
    }
  }
}
