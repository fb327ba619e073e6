/**
 * @module
 * One size of the scale benchmark, in a fresh data dir: the built server backfills the demo market
 * (`SOURCES=sim`, `SIM_BACKFILL_DAYS=days`, optionally `SIM_MARKETS`), the compaction after the backfill
 * is awaited and the server stopped; then the server restarts on the filled dir with no source
 * (`SOURCES=none`: nothing is added while it is read) `restarts` times for start-up and readiness, and
 * the last start serves the reads (reads.ts). Every server is its own process (chDB binds one dir per process).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { median } from '../stats.js'
import { quiet } from '../history/realistic-export.js'
import { cpuSeconds, rssMb, round } from '../history/measure.js'
import { candleDigest, exportRun, readMix, type FixedWindow, type Market, type MixResult } from './reads.js'
import { enterpriseKey } from '../http/bench-server.js'
import { spawnScaleServer } from './scale-server.js'

const HOUR_MS = 3_600_000
/** longest wait for a backfill, ms per backfilled day (a loaded 2-core machine took ~27 s per day) */
const BACKFILL_WAIT_MS_PER_DAY = 120_000
/** longest wait for the compaction after the backfill, and for a restart to be ready, ms */
const WAIT_MS = 1_800_000

export interface SizeOptions {
  readonly days: number
  /** SIM_MARKETS, or undefined for the whole demo universe */
  readonly markets: number | undefined
  readonly port: number
  readonly restarts: number
  readonly readsPerEndpoint: number
  readonly exports: number
  /** markets the reads rotate over and whose candles are hashed */
  readonly checked: readonly Market[]
  /** every base asset of the demo's perpetual markets (the export's symbols) */
  readonly bases: readonly string[]
  /** the fixed window; undefined: this run's own backfill defines it (the smallest size runs first) */
  readonly window: FixedWindow | undefined
  /**
   * a directory the filled data dir is moved into at the end (as `days-<n>`, with `bench-fill.json`: its own
   * backfill's whole hours and SIM_MARKETS) for bench/scale/first-export.ts; undefined: it is removed
   */
  readonly keepIn: string | undefined
}

export interface SizeResult {
  readonly days: number
  readonly window: FixedWindow
  readonly backfill: {
    rows: number
    ms: number
    rows_per_s: number
    /** the server's CPU seconds (every thread) from the demo's start line to its backfill's end line */
    cpu_s: number
    /** rows per server CPU-second: the figure other work on the machine disturbs least */
    rows_per_cpu_s: number
    wall_to_live_ms: number
  }
  readonly compaction: Record<string, unknown> | null
  readonly data_dir_bytes: number
  readonly table_bytes: Record<string, number>
  readonly startup_ms: number[]
  readonly ready_ms: number[]
  readonly live_state_built_ms: number[]
  readonly rss_at_rest_mb: number
  /** seconds waited for the restarted server to be idle before the reads (30: it never was) */
  readonly quiet_s: number
  readonly reads: MixResult
  readonly candles: { sha256: string; candles: number }
  readonly export: Awaited<ReturnType<typeof exportRun>>[]
}

const simEnv = (o: SizeOptions): Record<string, string> => ({
  SOURCES: 'sim',
  SIM_BACKFILL_DAYS: String(o.days),
  ...(o.markets === undefined ? {} : { SIM_MARKETS: String(o.markets) })
})

/** Backfills the demo market into `dir`; returns the backfill figures, its window and the compaction's log. */
async function backfill(dir: string, o: SizeOptions) {
  const server = spawnScaleServer(dir, o.port, simEnv(o))
  try {
    const demo = await server.line('all data from this source is SYNTHETIC', 120_000)
    const cpu0 = cpuSeconds(server.pid)
    const fromMs = Date.parse(String(demo.fields['backfill_from']))
    const liveFromMs = Date.parse(String(demo.fields['live_from']))
    const ended = await server.line('demo backfill ended', o.days * BACKFILL_WAIT_MS_PER_DAY + 120_000)
    const rows = Number(ended.fields['rows'])
    const ms = Number(ended.fields['ms'])
    const cpuS = round(cpuSeconds(server.pid) - cpu0)
    let compaction: Record<string, unknown> | null = null
    try {
      const c = await server.line('partitions compacted after a bulk load', WAIT_MS)
      compaction = {
        partitions: c.fields['partitions'],
        ms: c.fields['ms'],
        yieldedMs: c.fields['yieldedMs'],
        ended_after_backfill_ms: Math.round(c.atMs - ended.atMs)
      }
    } catch (err) {
      compaction = { error: (err as Error).message }
    }
    // the largest hour-aligned window inside this backfill (the live feed starts at liveFromMs)
    const window = {
      fromMs: Math.ceil(fromMs / HOUR_MS) * HOUR_MS,
      toMs: Math.floor(liveFromMs / HOUR_MS) * HOUR_MS
    }
    return {
      window,
      compaction,
      figures: {
        rows,
        ms,
        rows_per_s: Math.round(rows / (ms / 1000)),
        cpu_s: cpuS,
        rows_per_cpu_s: Math.round(rows / cpuS),
        wall_to_live_ms: Math.round(ended.atMs)
      }
    }
  } finally {
    await server.stop()
  }
}

/** Bytes under `dir` (apparent size, as `du -sb`). */
function dirBytes(dir: string): number {
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0])
}

/** Bytes of each table of the data dir (`data/default/<table>` links to the table's store directory). */
function tableBytes(dir: string): Record<string, number> {
  const tables = path.join(dir, 'data', 'default')
  const out: Record<string, number> = {}
  for (const t of fs.readdirSync(tables)) out[t] = dirBytes(fs.realpathSync(path.join(tables, t)))
  return out
}

export async function sizeRun(work: string, o: SizeOptions): Promise<SizeResult> {
  const dir = path.join(work, `days-${o.days}`)
  fs.mkdirSync(dir, { recursive: true })
  try {
    const b = await backfill(dir, o)
    if (o.keepIn !== undefined) {
      const fill = { ...b.window, markets: o.markets ?? null }
      fs.writeFileSync(path.join(dir, 'bench-fill.json'), JSON.stringify(fill) + '\n')
    }
    const window = o.window ?? b.window
    console.log(
      `scale ${o.days} d: backfill ${b.figures.rows} rows in ${b.figures.ms} ms (${b.figures.rows_per_s} rows/s, ${b.figures.cpu_s} server CPU-s)`
    )
    const bytes = dirBytes(dir)
    const tables = tableBytes(dir)
    const startup: number[] = []
    const ready: number[] = []
    const built: number[] = []
    for (let r = 0; ; r++) {
      const server = spawnScaleServer(dir, o.port, { SOURCES: 'none' })
      try {
        startup.push(Math.round((await server.line('listening', WAIT_MS)).atMs))
        ready.push(Math.round((await server.line('ready: serving data', WAIT_MS)).atMs))
        built.push(Number((await server.line('live state built', WAIT_MS)).fields['ms']))
        console.log(`scale ${o.days} d: restart ${r + 1}: listening ${startup.at(-1)} ms, ready ${ready.at(-1)} ms`)
        if (r + 1 < o.restarts) continue
        // the last start serves the reads, once its background start-up work is done
        const quietS = await quiet(server.pid)
        const rest = Math.round(rssMb(server.pid))
        const key = await enterpriseKey(server.base)
        const candles = await candleDigest(server.base, key, o.checked, window)
        const reads = await readMix(server.base, key, server.pid, o.checked, window, o.readsPerEndpoint)
        const exports = []
        for (let e = 0; e < o.exports; e++) {
          exports.push(
            await exportRun(server.base, key, server.pid, o.bases, window, path.join(work, 'export.parquet'))
          )
          console.log(
            `scale ${o.days} d: export ${exports.at(-1)!.rows_per_s} rows/s (${exports.at(-1)!.rows} rows), server CPU-s by thread ${JSON.stringify(exports.at(-1)!.server_threads_cpu_s)}`
          )
        }
        console.log(
          `scale ${o.days} d: ${JSON.stringify({ bytes, rest_rss_mb: rest, quiet_s: quietS, candles, reads, compaction: b.compaction })}`
        )
        return {
          days: o.days,
          window,
          backfill: b.figures,
          compaction: b.compaction,
          data_dir_bytes: bytes,
          table_bytes: tables,
          startup_ms: startup,
          ready_ms: ready,
          live_state_built_ms: built,
          rss_at_rest_mb: rest,
          quiet_s: quietS,
          reads,
          candles,
          export: exports
        }
      } finally {
        await server.stop()
      }
    }
  } finally {
    if (o.keepIn === undefined) fs.rmSync(dir, { recursive: true, force: true })
    else execFileSync('mv', [dir, path.join(o.keepIn, `days-${o.days}`)])
  }
}

/** Median of a size's runs of one figure, rounded. */
export const med = (xs: readonly number[]): number => round(median(xs))
