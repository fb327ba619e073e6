/**
 * @module
 * `node dist/bench/run.js first-export-engine`: where the engine's time goes in the first exports after a
 * start, in this process (chDB in-process, no HTTP). The filled dir of BENCH_FIRST_EXPORT_DIR (see
 * first-export.ts) is copied (`cp -a`), a store opened on the copy, and after 6 s for the start's background
 * work, the optional statements of BENCH_FIRST_EXPORT_PRE (`;`-separated, e.g. `SYSTEM PREWARM MARK CACHE
 * candles_1m`) run, then the export of every base's 1m candles over the fill's window (Parquet) runs
 * BENCH_FIRST_EXPORT_RUNS times (default 3). Per step: this process's CPU seconds (every thread), wall ms, and
 * the deltas of chDB's counters (`system.events`) that tell a first read from a later one: marks and
 * primary-index files loaded, waits for marks, JIT compilation, page faults, the engine threads' CPU time.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { runCandleExport } from '../../engine/export/export-run.js'
import { limitMarkets, UNIVERSE } from '../../ingest/sources/sim/universe.js'
import { round } from '../history/measure.js'

/** the counters read around each step (system.events names) */
const EVENTS = [
  'LoadedMarksCount',
  'LoadedPrimaryIndexFiles',
  'WaitMarksLoadMicroseconds',
  'CompileExpressionsMicroseconds',
  'SoftPageFaults',
  'UserTimeMicroseconds',
  'SystemTimeMicroseconds',
  'OSCPUVirtualTimeMicroseconds',
  'ReadCompressedBytes'
] as const

type Counters = Record<string, number>

async function counters(store: ChdbStore): Promise<Counters> {
  const rows = await store.query<{ event: string; value: number }>(
    `SELECT event, value FROM system.events WHERE event IN {names:Array(String)}`,
    { names: [...EVENTS] }
  )
  return Object.fromEntries(rows.map((r) => [r.event, Number(r.value)]))
}

const delta = (a: Counters, b: Counters): Counters =>
  Object.fromEntries(EVENTS.map((e) => [e, (b[e] ?? 0) - (a[e] ?? 0)]).filter(([, v]) => v !== 0))

/** CPU seconds of this process so far (every thread: the engine's too). */
function cpuS(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

async function step(store: ChdbStore, work: () => Promise<unknown>) {
  const c0 = await counters(store)
  const cpu0 = cpuS()
  const t0 = performance.now()
  await work()
  const out = { cpu_s: round(cpuS() - cpu0), ms: Math.round(performance.now() - t0) }
  return { ...out, events: delta(c0, await counters(store)) }
}

export async function firstExportEngineBench(): Promise<Record<string, unknown>> {
  const filled = process.env['BENCH_FIRST_EXPORT_DIR']
  if (!filled) throw new Error('BENCH_FIRST_EXPORT_DIR must name a filled data dir')
  const fill = JSON.parse(fs.readFileSync(path.join(filled, 'bench-fill.json'), 'utf8')) as {
    fromMs: number
    toMs: number
    markets: number | null
  }
  const pre = (process.env['BENCH_FIRST_EXPORT_PRE'] ?? '')
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
  const runs = Number(process.env['BENCH_FIRST_EXPORT_RUNS'] ?? '3')
  const universe = fill.markets === null ? UNIVERSE : limitMarkets(UNIVERSE, fill.markets)
  const markets = universe.markets.map((m) => ({ exchange: m.exchange, symbol: m.symbol, base: m.base }))
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-first-engine-'))
  const dir = path.join(work, 'copy')
  execFileSync('cp', ['-a', filled, dir])
  const store = new ChdbStore({ path: dir, poolSize: 4 })
  const loadAtStart = os.loadavg().map(round)
  try {
    // the start's background work (outdated parts loaded and removed) is not the exports'
    await new Promise((r) => setTimeout(r, 6_000))
    const exportOnce = async () => {
      let bytes = 0
      const body = runCandleExport(store, {
        timeframe: '1m',
        markets,
        fromMs: fill.fromMs,
        toMs: fill.toMs,
        format: 'parquet',
        tmpDir: path.join(work, 'tmp'),
        synthetic: true,
        pinMerged: true
      })
      for await (const chunk of body) bytes += chunk.length
      return bytes
    }
    const preStep = await step(store, async () => {
      for (const sql of pre) await store.command(sql)
    })
    const exports = []
    for (let i = 0; i < runs; i++) exports.push(await step(store, exportOnce))
    return {
      load_average_at_start: loadAtStart,
      load_average_at_end: os.loadavg().map(round),
      pre,
      pre_step: preStep,
      exports
    }
  } finally {
    await store.close()
    fs.rmSync(work, { recursive: true, force: true })
  }
}
