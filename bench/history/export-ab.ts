/**
 * @module
 * The realistic export (every screener base on every venue, 30 days of 1m candles, ~2.0M rows) from this
 * build's server and another built checkout's (`BENCH_EXPORT_REF`, required), interleaved: both servers
 * run at once (`SOURCES=none`) on two copies of one settled data dir, and each round exports CSV then
 * Parquet from one and then the other, the order swapped every round, so drift of the machine falls on
 * both. Figures per export: wall ms, the server's CPU seconds and by thread name (`main`; `node`: V8's
 * platform workers, whose time in an export is garbage collection, and libuv's pool; `ThreadPool` and the
 * rest: the engine). The files must be byte-identical between the builds (SHA-256), else the run fails.
 *
 * - the data: `BENCH_EXPORT_AB_DIR` (a stopped server's data dir; copied, never written), else a 30-day demo
 *   backfill by this build, stopped;
 * - the dir is settled first (settle-store.ts: the outdated parts a run leaves are removed once, not by
 *   each server ~30 s after it opens its copy);
 * - `BENCH_EXPORT_AB_IDLE_S` (default 60): both servers idle this long after ready before the first round.
 *   A freshly started server's first exports cost less in `node` (no old-generation collections yet), so
 *   rounds start in the state a server that has run a while is in;
 * - `BENCH_ROUNDS` rounds (default 10);
 * - `BENCH_EXPORT_AB_LIVE=1`: instead, each build's server backfills its own 30-day demo market
 *   (`SOURCES=sim`, one after the other) and stays live with its feed; after the idle (default 120 s here:
 *   the compaction after the backfill) the same rounds export the 30 days up to the round's minute. The live
 *   minutes differ between the two servers, so files are compared by size, not hash, and an export does not
 *   wait for an idle server (the feed keeps it at ~0.15 CPU-s per s): 2 s pass between exports.
 *   `BENCH_EXPORT_AB_REF_FIRST=1` starts the reference first (the first one's compaction overlaps the
 *   second's backfill).
 *
 * `npm run build && BENCH_EXPORT_REF=<checkout> node dist/bench/run.js export-ab`; results in
 * bench/results/export-ab.json.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { enterpriseKey, startBenchServer } from '../http/bench-server.js'
import { median } from '../stats.js'
import { cpuSeconds, download, round, settleStore } from './measure.js'
import { quiet, screenerBases } from './realistic-export.js'
import { threadCpuDiff, threadCpuOf } from './thread-cpu-of.js'

const DAYS = 30
const FORMATS = ['csv', 'parquet'] as const
type Format = (typeof FORMATS)[number]

interface Build {
  readonly name: string
  readonly base: string
  readonly pid: number
  readonly key: string
  stop(): Promise<void>
}

interface Export {
  readonly ms: number
  readonly cpuS: number
  readonly threads: Record<string, number>
  readonly sha: string
  readonly bytes: number
  /** live mode: the server's CPU-s per s over the 2 s before the export (its feed, ingest and merges) */
  readonly idleRate: number
}

/** A stopped 30-day demo dir written by this build. */
async function demoDir(dir: string, port: number): Promise<void> {
  const sim = await startBenchServer(
    port,
    { SOURCES: 'sim', SIM_BACKFILL_DAYS: String(DAYS) },
    (h) => h.sources[0]?.phase === 'live',
    dir,
    { keepDir: true }
  )
  await sim.stop()
}

/** Every base with 1m candles and the range to export: the 30 days up to the last stored minute. */
async function exportShape(dir: string): Promise<{ bases: string[]; fromMs: number; toMs: number }> {
  const store = new ChdbStore({ path: dir, poolSize: 1 })
  try {
    const bases = (await store.query<{ base: string }>('SELECT DISTINCT base FROM candles_1m ORDER BY base')).map(
      (r) => r.base
    )
    const [last] = await store.query<{ s: number | string }>('SELECT toUnixTimestamp(max(bucket)) AS s FROM candles_1m')
    const toMs = (Number(last!.s) + 60) * 1000
    return { bases, fromMs: toMs - DAYS * 86_400_000, toMs }
  } finally {
    await store.close()
  }
}

async function exportOnce(b: Build, url: string, file: string, live: boolean): Promise<Export> {
  let idleRate = 0
  if (live) {
    const i0 = cpuSeconds(b.pid)
    const t0 = performance.now()
    await new Promise((r) => setTimeout(r, 2000))
    idleRate = (cpuSeconds(b.pid) - i0) / ((performance.now() - t0) / 1000)
  } else await quiet(b.pid)
  const th0 = threadCpuOf(b.pid)
  const c0 = cpuSeconds(b.pid)
  const got = await download(url, b.key, file)
  const cpuS = round(cpuSeconds(b.pid) - c0)
  const threads = threadCpuDiff(th0, threadCpuOf(b.pid))
  // live exports differ by their newest minutes: compared by size, so not read back
  const sha = live ? '' : crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16)
  fs.rmSync(file)
  return { ms: Math.round(got.ms), cpuS, threads, sha, bytes: got.bytes, idleRate }
}

const med = (xs: readonly number[]): number => round(median(xs))
/** live mode: the export's CPU less what the server spends at its idle rate over the export's wall time */
const netCpu = (e: Export): number => e.cpuS - e.idleRate * (e.ms / 1000)

export async function exportAbBench(rounds: number, port = 18_961): Promise<Record<string, unknown>> {
  const ref = process.env['BENCH_EXPORT_REF']
  if (!ref) throw new Error('export-ab needs BENCH_EXPORT_REF: the root of another built checkout')
  const refScript = path.join(path.resolve(ref), 'dist', 'server', 'main.js')
  if (!fs.existsSync(refScript)) throw new Error(`export-ab: ${refScript} does not exist (build that checkout)`)
  const live = process.env['BENCH_EXPORT_AB_LIVE'] === '1'
  const idleS = Number(process.env['BENCH_EXPORT_AB_IDLE_S'] ?? (live ? 120 : 60))
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-export-ab-'))
  const builds: Build[] = []
  try {
    let shape: { bases: string[]; fromMs: number; toMs: number } | null = null
    if (!live) {
      const src = path.join(work, 'src')
      const given = process.env['BENCH_EXPORT_AB_DIR']
      if (given) fs.cpSync(given, src, { recursive: true })
      else await demoDir(src, port)
      const settled = settleStore(src)
      shape = await exportShape(src)
      console.log(`export-ab: ${shape.bases.length} bases; settled ${JSON.stringify(settled)}`)
    }
    const order = [
      ['this build', undefined],
      ['reference', refScript]
    ] as const
    // started one after the other: in live mode the first one's compaction runs during the second's backfill
    for (const [name, script] of process.env['BENCH_EXPORT_AB_REF_FIRST'] === '1' ? [...order].reverse() : order) {
      const dir = path.join(work, `server-${builds.length}`)
      if (shape) fs.cpSync(path.join(work, 'src'), dir, { recursive: true })
      else fs.mkdirSync(dir)
      const s = await startBenchServer(
        port + 1 + builds.length,
        live ? { SOURCES: 'sim', SIM_BACKFILL_DAYS: String(DAYS) } : { SOURCES: 'none' },
        (h) => (live ? h.sources[0]?.phase === 'live' : (h as { ready?: boolean }).ready === true),
        dir,
        { ...(script && { script }) }
      )
      builds.push({ name, base: s.base, pid: s.pid, key: await enterpriseKey(s.base), stop: s.stop })
    }
    const bases = shape?.bases ?? (await screenerBases(builds[0]!.base, builds[0]!.key))
    const range = () => {
      if (shape) return `start_time=${shape.fromMs}&end_time=${shape.toMs}`
      const end = Math.floor(Date.now() / 60_000) * 60_000
      return `start_time=${end - DAYS * 86_400_000}&end_time=${end}`
    }
    const url = (b: Build, f: Format, span: string) =>
      `${b.base}/v1/backtest/export?symbols=${bases.join(',')}&timeframe=1m&${span}&format=${f}`
    const file = path.join(work, 'export.out')
    await new Promise((r) => setTimeout(r, idleS * 1000))
    for (const b of builds) for (const f of FORMATS) await exportOnce(b, url(b, f, range()), file, live) // unmeasured
    const runs: Record<string, Record<Format, Export[]>> = {}
    for (let r = 0; r < rounds; r++) {
      const span = range()
      for (const b of r % 2 === 0 ? builds : [...builds].reverse()) {
        for (const f of FORMATS) {
          const e = await exportOnce(b, url(b, f, span), file, live)
          ;((runs[b.name] ??= { csv: [], parquet: [] })[f] as Export[]).push(e)
          const idle = live ? ` (idle ${round(e.idleRate)} CPU-s/s)` : ''
          console.log(
            `export-ab: round ${r} ${b.name} ${f} ${e.ms} ms, ${e.cpuS} CPU-s${idle} ${JSON.stringify(e.threads)}`
          )
        }
      }
    }
    const out: Record<string, unknown> = { rounds, live, idle_s: idleS, bases: bases.length, reference: ref }
    for (const f of FORMATS) {
      const mine = runs['this build']![f]
      const theirs = runs['reference']![f]
      const shas = new Set([...mine, ...theirs].map((e) => e.sha))
      if (!live && shas.size !== 1) throw new Error(`export-ab: ${f} files differ between runs or builds: ${[...shas]}`)
      const summary = (es: readonly Export[]) => {
        const names = new Set(es.flatMap((e) => Object.keys(e.threads)))
        return {
          ms: med(es.map((e) => e.ms)),
          cpu_s: med(es.map((e) => e.cpuS)),
          cpu_s_by_thread: Object.fromEntries([...names].map((n) => [n, med(es.map((e) => e.threads[n] ?? 0))])),
          runs_ms: es.map((e) => e.ms),
          runs_cpu_s: es.map((e) => e.cpuS),
          ...(live && {
            idle_cpu_s_per_s: med(es.map((e) => e.idleRate)),
            net_cpu_s: med(es.map(netCpu))
          })
        }
      }
      const a = summary(mine)
      const b = summary(theirs)
      // each round's two exports ran back to back: the median of their ratios takes out the drift between rounds
      const paired = (pick: (e: Export) => number) => med(mine.map((e, i) => pick(e) / pick(theirs[i]!)))
      out[f] = {
        paired_ms_ratio: paired((e) => e.ms),
        paired_cpu_ratio: paired((e) => e.cpuS),
        ...(live && { paired_net_cpu_ratio: paired(netCpu) }),
        ...(live ? { mb: med([...mine, ...theirs].map((e) => e.bytes / 1_048_576)) } : { sha256_16: [...shas][0] }),
        this_build: a,
        reference: b,
        ms_ratio: round(a.ms / b.ms),
        cpu_ratio: round(a.cpu_s / b.cpu_s)
      }
    }
    return out
  } finally {
    for (const b of builds) await b.stop()
    fs.rmSync(work, { recursive: true, force: true })
  }
}
