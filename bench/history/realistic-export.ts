/**
 * @module
 * The candle export at the shape users run (docs/benchmarks.md), beside the 10M-row one of history.ts: every
 * base the screener lists (~190) on every venue (~520 markets), 30 days of 1m candles (~2.0M rows) with
 * the live month included, from the built server with the demo market (`SOURCES=sim`, 30 days backfilled).
 *
 * - during: Parquet exports right after the demo backfill, before the compaction it triggers logged its end
 *   (the compaction waits while exports stream, at most 30 s: engine/store/compact.ts); each says whether
 *   compaction was running when it began and ended; the compaction's log line (its `ms` and `yieldedMs`)
 *   is in the results. `BENCH_REALISTIC_DURING_ONLY=1` stops after this phase;
 * - after: once the compaction logged its end, Parquet and CSV exports alternate (`rounds` each), with
 *   server RSS growth and CPU seconds per export;
 * - ceiling: the sim server is stopped, its dir opened once until the engine removed the outdated parts the
 *   run left (settle-store.ts: else each process opened on a copy removes them ~30 s after opening, 1-2
 *   CPU-s that land in whichever exports run then), and copied twice, frozen; a server (`SOURCES=none`) on
 *   one copy answers the same export over HTTP (fixed start_time/end_time) while a child process on the
 *   other (export-ceiling.ts) runs the same statement in process into a file; rounds alternate HTTP and
 *   ceiling, Parquet and CSV. The ratio of medians is the HTTP path's share of the engine's ceiling.
 *
 * The HTTP reader is `curl` when installed (`BENCH_EXPORT_CLIENT=node`: Node's http). Rows are counted
 * from each file (Parquet footer, CSV lines), never assumed. Part of `npm run bench --
 * history`; alone: `npm run build && node dist/bench/history/realistic-export.js` (BENCH_ROUNDS, default 3),
 * results in bench/results/history-realistic.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { pathToFileURL } from 'node:url'
import { distPath, projectRoot } from '../../engine/paths.js'
import { enterpriseKey, startBenchServer } from '../http/bench-server.js'
import { median } from '../stats.js'
import { cpuSeconds, download, parquetRowCount, round, settleStore, withRss } from './measure.js'
import { threadCpuDiff, threadCpuOf } from './thread-cpu-of.js'

const MIN = 60_000
const DAYS = 30
/** longest wait for the compaction after the backfill to log its end */
const COMPACTION_WAIT_MS = 300_000
/** longest wait for the screener to list markets once the backfill is served */
const SCREENER_WAIT_MS = 60_000

type Format = 'parquet' | 'csv'

interface SimServer {
  readonly base: string
  readonly pid: number
  /** epoch ms the compaction after the backfill logged its end; null until then */
  readonly compactedAt: number | null
  /** that log line's figures (partitions, ms, yieldedMs: engine/store/compact.ts); null until then */
  readonly compaction: Record<string, unknown> | null
  stop(): Promise<void>
}

/** The built server with the demo market in `dir`, ready once the backfill is written (phase `live`). */
async function startSim(dir: string, port: number): Promise<SimServer> {
  const serverLog = process.env['BENCH_SERVER_LOG'] ? fs.createWriteStream(process.env['BENCH_SERVER_LOG']) : null
  let compactedAt: number | null = null
  let compaction: Record<string, unknown> | null = null
  const server = await startBenchServer(
    port,
    { LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info', SOURCES: 'sim', SIM_BACKFILL_DAYS: String(DAYS) },
    (h) => h.sources[0]?.phase === 'live',
    dir,
    {
      keepDir: true,
      // the compactor logs one line per run that merged partitions (engine/store/compact.ts)
      onStdoutLine: (line) => {
        serverLog?.write(`${Date.now()} ${line}\n`)
        if (compactedAt === null && line.includes('partitions compacted after a bulk load')) {
          compactedAt = Date.now()
          const { partitions, ms, yieldedMs } = JSON.parse(line) as Record<string, unknown>
          compaction = { partitions, ms, yieldedMs }
        }
      }
    }
  )
  return {
    base: server.base,
    pid: server.pid,
    get compactedAt() {
      return compactedAt
    },
    get compaction() {
      return compaction
    },
    stop: () => server.stop()
  }
}

/** Every base the screener lists. */
export async function screenerBases(base: string, key: string): Promise<string[]> {
  // the screener can answer 503 warming_up, or no rows, for a moment after the backfill on a loaded machine
  const deadline = Date.now() + SCREENER_WAIT_MS
  for (;;) {
    const res = await fetch(`${base}/v1/derivatives/screener?limit=1000`, { headers: { 'x-api-key': key } })
    const text = await res.text()
    const rows = res.ok ? (JSON.parse(text) as { rows: { base: string }[] }).rows : []
    if (rows.length > 0) return [...new Set(rows.map((r) => r.base))]
    if (Date.now() > deadline) throw new Error(`the screener listed no markets: ${res.status} ${text.slice(0, 200)}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

/** Rows of an export file: the Parquet footer's count, or CSV lines after the header. */
async function rowsOf(file: string, format: Format): Promise<number> {
  if (format === 'parquet') return parquetRowCount(file)
  let lines = 0
  for await (const chunk of fs.createReadStream(file)) {
    const buf = chunk as Buffer
    for (let at = buf.indexOf(10); at !== -1; at = buf.indexOf(10, at + 1)) lines++
  }
  return lines - 1
}

/** The export child (export-ceiling.ts) on `dir`: one request at a time. */
function startCeiling(dir: string): {
  run(req: object): Promise<{ ms: number; bytes: number; cpuS: number }>
  stop(): Promise<void>
} {
  const child: ChildProcess = spawn(process.execPath, [distPath('bench', 'history', 'export-ceiling.js'), dir], {
    env: { ...process.env, TZ: 'UTC' },
    stdio: ['pipe', 'pipe', 'inherit']
  })
  const answers = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  return {
    async run(req) {
      child.stdin!.write(JSON.stringify(req) + '\n')
      const next = await answers.next()
      if (next.done) throw new Error('export ceiling process ended')
      const a = JSON.parse(next.value as string) as { ms: number; bytes: number; cpuS: number; error?: string }
      if (a.error) throw new Error(`export ceiling: ${a.error}`)
      return a
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r))
      child.stdin!.end()
      await exited
    }
  }
}

export interface Run {
  readonly rows: number
  readonly rowsPerS: number
  readonly mb: number
  readonly cpuS: number
  readonly rssGrowthMb: number
}

/**
 * The reader: `curl` (a C client, as users download; `BENCH_EXPORT_CLIENT=node` or no curl: Node's http,
 * whose parsing and file writes take ~0.3 CPU-s of the same 2 cores per 85 MB).
 */
const CLIENT: 'curl' | 'node' =
  process.env['BENCH_EXPORT_CLIENT'] !== 'node' && spawnSync('curl', ['--version']).status === 0 ? 'curl' : 'node'

/** Downloads `url` into `file` with curl; wall ms from the spawn to curl's exit. */
function curlDownload(url: string, key: string, file: string): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn('curl', ['-sS', '--fail', '-o', file, '-H', `x-api-key: ${key}`, '-w', '%{size_download}', url])
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`curl exited ${code} for ${url.slice(0, 80)}`))
      resolve({ bytes: Number(out), ms: performance.now() - t0 })
    })
  })
}

/** One export over HTTP into `file`, with the server's RSS and CPU. */
export async function httpExport(pid: number, url: string, key: string, file: string, format: Format): Promise<Run> {
  const r = await withRss(pid, () => (CLIENT === 'curl' ? curlDownload(url, key, file) : download(url, key, file)))
  const rows = await rowsOf(file, format)
  fs.rmSync(file)
  return {
    rows,
    rowsPerS: Math.round(rows / (r.value.ms / 1000)),
    mb: Math.round(r.value.bytes / 1_048_576),
    cpuS: r.cpuS,
    rssGrowthMb: Math.round(r.peak - r.before)
  }
}

/**
 * Waits until the server process is idle (under 0.05 CPU-s in a second; at most 30 s): a server just
 * started on a copied data dir merges the live parts of several tables in the background for a while,
 * which would count as export CPU. Returns the seconds waited.
 */
export async function quiet(pid: number): Promise<number> {
  const t0 = Date.now()
  for (let last = cpuSeconds(pid); Date.now() - t0 < 30_000;) {
    await new Promise((r) => setTimeout(r, 1000))
    const now = cpuSeconds(pid)
    if (now - last < 0.05) break
    last = now
  }
  return round((Date.now() - t0) / 1000)
}

const summary = (runs: readonly Run[]) => ({
  rows: runs.map((r) => r.rows),
  runs_rows_per_s: runs.map((r) => r.rowsPerS),
  median_rows_per_s: Math.round(median(runs.map((r) => r.rowsPerS))),
  server_cpu_s_runs: runs.map((r) => r.cpuS),
  rss_growth_mb_runs: runs.map((r) => r.rssGrowthMb),
  mb: runs[0]?.mb
})

export async function realisticExportBench(rounds: number, port = 18_941): Promise<Record<string, unknown>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-real-'))
  const dir = path.join(work, 'sim')
  fs.mkdirSync(dir)
  const t0 = performance.now()
  const sim = await startSim(dir, port)
  const backfillS = round((performance.now() - t0) / 1000)
  const file = (f: Format) => path.join(work, `export.${f}`)
  try {
    const key = await enterpriseKey(sim.base)
    const bases = await screenerBases(sim.base, key)
    const url = (f: Format, base = sim.base, range = `lookback=${DAYS}d`) =>
      `${base}/v1/backtest/export?symbols=${bases.join(',')}&timeframe=1m&${range}&format=${f}`
    console.log(`history/realistic: demo backfill ready in ${backfillS} s; ${bases.length} screener bases`)

    // (a) right after the backfill, while its compaction runs
    const during: (Run & { compaction: string })[] = []
    for (let r = 0; r < rounds && sim.compactedAt === null; r++) {
      // the loop runs while the compaction has not logged its end: it is running at each export's start
      const startedAt = Date.now()
      const run = await httpExport(sim.pid, url('parquet'), key, file('parquet'), 'parquet')
      const state = `running at start, ${sim.compactedAt === null ? 'running' : 'done'} at end`
      during.push({ ...run, compaction: state })
      console.log(
        `history/realistic: during compaction ${run.rowsPerS} rows/s (${run.rows} rows, ${state}; epoch ms ${startedAt}-${Date.now()})`
      )
    }
    const duringSummary =
      during.length > 0
        ? { ...summary(during), compaction: during.map((d) => d.compaction) }
        : 'compaction ended before the first export'
    if (process.env['BENCH_REALISTIC_DURING_ONLY'] === '1') {
      return { backfill_s: backfillS, during_compaction_parquet: duringSummary, compaction_log: sim.compaction }
    }
    const waitStart = Date.now()
    while (sim.compactedAt === null && Date.now() - waitStart < COMPACTION_WAIT_MS) {
      await new Promise((r) => setTimeout(r, 200))
    }
    const compactionS =
      sim.compactedAt === null ? null : round((sim.compactedAt - (t0 + performance.timeOrigin)) / 1000)

    // (b) after the compaction: Parquet and CSV alternate
    const after: Record<Format, Run[]> = { parquet: [], csv: [] }
    // the live server's own CPU without an export (demo feed ingest, background merges), CPU-s per second
    // over the 2 s before each export: part of every export's server CPU figure
    const liveCpuPerS: number[] = []
    for (let r = 0; r < rounds; r++) {
      for (const f of ['parquet', 'csv'] as const) {
        const c0 = cpuSeconds(sim.pid)
        await new Promise((res) => setTimeout(res, 2000))
        liveCpuPerS.push(round((cpuSeconds(sim.pid) - c0) / 2))
        const run = await httpExport(sim.pid, url(f), key, file(f), f)
        after[f].push(run)
        console.log(
          `history/realistic: after compaction ${f} ${run.rowsPerS} rows/s (${run.rows} rows, ${run.mb} MB, CPU ${run.cpuS} s, RSS +${run.rssGrowthMb} MB)`
        )
      }
    }

    // (c) frozen copies: HTTP against the engine's ceiling of the same statement, alternating
    await sim.stop()
    const settle = settleStore(dir)
    console.log(`history/realistic: outdated parts removed before the copies: ${JSON.stringify(settle)}`)
    const end = Math.floor(Date.now() / MIN) * MIN
    const range = `start_time=${end - DAYS * 86_400_000}&end_time=${end}`
    const httpDir = path.join(work, 'http')
    const ceilDir = path.join(work, 'ceiling')
    fs.cpSync(dir, httpDir, { recursive: true })
    fs.cpSync(dir, ceilDir, { recursive: true })
    // ready: its start-up work on the copied data done (data routes answer 503 before)
    const frozen = await startBenchServer(
      port + 1,
      { SOURCES: 'none' },
      (h) => (h as { ready?: boolean }).ready === true,
      httpDir
    )
    const ceiling = startCeiling(ceilDir)
    const http: Record<Format, Run[]> = { parquet: [], csv: [] }
    /** seconds waited for the frozen server to be idle before each of its exports */
    const quietS: number[] = []
    /** the frozen server's CPU-s by thread name per HTTP export, in order */
    const httpThreads: Record<string, unknown>[] = []
    const engine: Record<Format, Run[]> = { parquet: [], csv: [] }
    try {
      const frozenKey = await enterpriseKey(frozen.base)
      // one unmeasured export each: the first query of a process after start was ~2x slower (caches)
      await httpExport(frozen.pid, url('parquet', frozen.base, range), frozenKey, file('parquet'), 'parquet')
      await ceiling.run({
        format: 'parquet',
        symbols: bases,
        fromMs: end - DAYS * 86_400_000,
        toMs: end,
        file: file('parquet')
      })
      fs.rmSync(file('parquet'))
      for (let r = 0; r < rounds; r++) {
        for (const f of ['parquet', 'csv'] as const) {
          quietS.push(await quiet(frozen.pid))
          const th0 = threadCpuOf(frozen.pid)
          http[f].push(await httpExport(frozen.pid, url(f, frozen.base, range), frozenKey, file(f), f))
          // CPU-s by thread name; `ended`: threads that started and ended during the export (not listed)
          const th = threadCpuDiff(th0, threadCpuOf(frozen.pid))
          const listed = Object.values(th).reduce((a, b) => a + b, 0)
          httpThreads.push({ format: f, ...th, ended: round(http[f].at(-1)!.cpuS - listed) })
          const c = await ceiling.run({
            format: f,
            symbols: bases,
            fromMs: end - DAYS * 86_400_000,
            toMs: end,
            file: file(f)
          })
          const rows = await rowsOf(file(f), f)
          fs.rmSync(file(f))
          engine[f].push({
            rows,
            rowsPerS: Math.round(rows / (c.ms / 1000)),
            mb: Math.round(c.bytes / 1_048_576),
            cpuS: round(c.cpuS),
            rssGrowthMb: 0
          })
          console.log(
            `history/realistic: frozen ${f} round ${r + 1}: HTTP ${http[f].at(-1)!.rowsPerS} rows/s (CPU ${http[f].at(-1)!.cpuS} s), ceiling ${engine[f].at(-1)!.rowsPerS} rows/s (CPU ${engine[f].at(-1)!.cpuS} s)`
          )
        }
      }
    } finally {
      await ceiling.stop()
      await frozen.stop()
    }
    const ratio = (f: Format) =>
      round(median(http[f].map((r) => r.rowsPerS)) / median(engine[f].map((r) => r.rowsPerS)))
    const perRound = (f: Format) => http[f].map((r, i) => round(r.rowsPerS / engine[f][i]!.rowsPerS))
    const load = os.loadavg().map(round)
    return {
      dataset: `demo market (SOURCES=sim), ${DAYS} days backfilled in ${backfillS} s (ready to serve), compaction logged its end ${compactionS ?? 'never (waited 300 s)'} s after start; ${bases.length} screener bases on every venue, 1m candles, lookback ${DAYS}d (live month included)`,
      during_compaction_parquet: duringSummary,
      compaction_log: sim.compaction,
      live_server_cpu_s_per_s_without_export: liveCpuPerS,
      after_compaction_parquet: summary(after.parquet),
      after_compaction_csv: summary(after.csv),
      frozen_vs_ceiling: {
        note: 'the data dir copied after the sim server stopped; HTTP (SOURCES=none) and the in-process statement alternate; the server idle before each of its exports',
        outdated_parts_settled: settle,
        server_idle_wait_s: quietS,
        http_cpu_s_by_thread: httpThreads,
        parquet_http: summary(http.parquet),
        parquet_ceiling: summary(engine.parquet),
        parquet_ratio_of_medians: ratio('parquet'),
        parquet_ratio_per_round: perRound('parquet'),
        csv_http: summary(http.csv),
        csv_ceiling: summary(engine.csv),
        csv_ratio_of_medians: ratio('csv'),
        csv_ratio_per_round: perRound('csv')
      },
      client: CLIENT,
      load_average_at_end: load,
      targets: { after_rows_per_s: 2_000_000, during_rows_per_s: 1_500_000, ratio_vs_ceiling: 0.8, rss_growth_mb: 200 }
    }
  } finally {
    await sim.stop()
    fs.rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = await realisticExportBench(Number(process.env['BENCH_ROUNDS'] ?? 3))
  console.log(JSON.stringify(out, null, 2))
  const dir = path.join(projectRoot(), 'bench', 'results')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    path.join(dir, 'history-realistic.json'),
    JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
  )
}
