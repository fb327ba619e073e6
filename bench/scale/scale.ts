/**
 * @module
 * `npm run bench -- scale`: the demo market backfilled at several sizes (days of history, default 30, 90
 * and 365, all ~520 perpetual markets and the options chain), each into a fresh data dir by the built
 * server (size-run.ts), smallest first. Per size: backfill rows/s and rows per server CPU-second, data-dir
 * bytes per market-day, start-up and readiness on the filled dir, p50/p99 of the history endpoints over a
 * fixed window, the export's rows/s, RSS at rest and under the read mix, and the compaction after the
 * backfill. The fixed window is the largest whole-hour window inside the smallest size's backfill (just
 * under its length); every size holds it, so its candles must be byte-identical across sizes: the
 * benchmark fails otherwise.
 *
 * Shape (environment): BENCH_SCALE_DAYS (comma list, default `30,90,365`), BENCH_SCALE_MARKETS (SIM_MARKETS
 * of every size; unset: all), BENCH_SCALE_RESTARTS (default 2), BENCH_SCALE_READS (requests per endpoint,
 * default 30), BENCH_SCALE_EXPORTS (default 2), BENCH_SCALE_CHECKED (markets the reads rotate over and
 * whose candles are hashed, default 8), BENCH_SCALE_KEEP (an existing directory each size's filled data dir
 * is moved into, as `days-<n>`, for bench/scale/first-export.ts). Results in bench/results/scale.json.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { limitMarkets, UNIVERSE } from '../../ingest/sources/sim/universe.js'
import type { Market } from './reads.js'
import { med, sizeRun, type SizeResult } from './size-run.js'
import { round } from '../history/measure.js'

const DAY_MS = 86_400_000

function envInt(name: string, fallback: number): number {
  const v = process.env[name]
  if (v === undefined || v === '') return fallback
  const n = Number(v)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${v}`)
  return n
}

function daysList(): number[] {
  const text = process.env['BENCH_SCALE_DAYS'] ?? '30,90,365'
  const days = text.split(',').map((d) => Number(d.trim()))
  if (days.length < 1 || days.some((d) => !Number.isSafeInteger(d) || d < 2 || d > 365)) {
    throw new Error(`BENCH_SCALE_DAYS must list day counts from 2 to 365, got ${text}`)
  }
  return [...new Set(days)].sort((a, b) => a - b)
}

/** `n` markets evenly spread over the universe's (the most liquid of each venue first). */
function checkedMarkets(markets: readonly Market[], n: number): Market[] {
  const step = Math.max(1, Math.floor(markets.length / n))
  return markets.filter((_, i) => i % step === 0).slice(0, n)
}

/** Ratio of the largest size's figure to the smallest's. */
const growth = (first: number, last: number): number => round(last / first)

export async function scaleBench(): Promise<Record<string, unknown>> {
  const days = daysList()
  const marketsEnv = process.env['BENCH_SCALE_MARKETS']
  const marketCount = marketsEnv ? envInt('BENCH_SCALE_MARKETS', 1) : undefined
  const universe = marketCount === undefined ? UNIVERSE : limitMarkets(UNIVERSE, marketCount)
  const markets: Market[] = universe.markets.map((m) => ({ exchange: m.exchange, symbol: m.symbol, base: m.base }))
  const checked = checkedMarkets(markets, envInt('BENCH_SCALE_CHECKED', 8))
  const bases = [...new Set(markets.map((m) => m.base))]
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-scale-'))
  const loadAtStart = os.loadavg().map(round)
  const sizes: SizeResult[] = []
  try {
    for (const d of days) {
      sizes.push(
        await sizeRun(work, {
          days: d,
          markets: marketCount,
          port: 18_961,
          restarts: envInt('BENCH_SCALE_RESTARTS', 2),
          readsPerEndpoint: envInt('BENCH_SCALE_READS', 30),
          exports: envInt('BENCH_SCALE_EXPORTS', 2),
          checked,
          bases,
          window: sizes[0]?.window,
          keepIn: process.env['BENCH_SCALE_KEEP'] || undefined
        })
      )
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  const first = sizes[0]!
  const last = sizes.at(-1)!
  const perSize = sizes.map((s) => ({
    days: s.days,
    backfill_rows: s.backfill.rows,
    backfill_rows_per_s: s.backfill.rows_per_s,
    backfill_cpu_s: s.backfill.cpu_s,
    backfill_rows_per_cpu_s: s.backfill.rows_per_cpu_s,
    data_dir_bytes: s.data_dir_bytes,
    table_bytes: s.table_bytes,
    bytes_per_market_day: Math.round(s.data_dir_bytes / (markets.length * s.days)),
    startup_ms: med(s.startup_ms),
    ready_ms: med(s.ready_ms),
    live_state_built_ms: med(s.live_state_built_ms),
    rss_at_rest_mb: s.rss_at_rest_mb,
    quiet_s: s.quiet_s,
    rss_read_mix_peak_mb: s.reads.rss_peak_mb,
    reads_ms: s.reads.latency_ms,
    export_rows: s.export[0]?.rows,
    export_rows_per_s: med(s.export.map((e) => e.rows_per_s)),
    compaction: s.compaction,
    candles: s.candles,
    runs: { startup_ms: s.startup_ms, ready_ms: s.ready_ms, export: s.export, backfill: s.backfill }
  }))
  const readGrowth = Object.fromEntries(
    Object.keys(first.reads.latency_ms).map((k) => [
      k,
      {
        p50: growth(first.reads.latency_ms[k]!.p50, last.reads.latency_ms[k]!.p50),
        p99: growth(first.reads.latency_ms[k]!.p99, last.reads.latency_ms[k]!.p99)
      }
    ])
  )
  const digests = new Set(sizes.map((s) => s.candles.sha256))
  const out = {
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    load_average_at_start: loadAtStart,
    load_average_at_end: os.loadavg().map(round),
    shape: {
      days,
      perpetual_markets: markets.length,
      options: 'Deribit BTC and ETH chains (demo)',
      checked_markets: checked.map((m) => `${m.exchange}:${m.symbol}`),
      window: { ...first.window, days: round((first.window.toMs - first.window.fromMs) / DAY_MS) }
    },
    sizes: perSize,
    largest_vs_smallest: {
      reads: readGrowth,
      ready: growth(med(first.ready_ms), med(last.ready_ms)),
      startup: growth(med(first.startup_ms), med(last.startup_ms)),
      backfill_rows_per_s: growth(first.backfill.rows_per_s, last.backfill.rows_per_s),
      backfill_rows_per_cpu_s: growth(first.backfill.rows_per_cpu_s, last.backfill.rows_per_cpu_s),
      export_rows_per_s: growth(med(first.export.map((e) => e.rows_per_s)), med(last.export.map((e) => e.rows_per_s)))
    },
    candles_identical: digests.size === 1,
    targets: {
      reads_and_ready_growth_max: 1.5,
      backfill_rows_per_s_ratio_min: 0.8,
      rss_at_rest_mb_max_at_365_days: 1536
    }
  }
  return out
}
