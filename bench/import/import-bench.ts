/**
 * @module
 * `npm run bench -- import`: rows/s of `tidewatch import` on a data.binance.vision aggTrades CSV (target
 * >= 500,000 rows/s) against the engine ceiling of the same path (pre-built TSV through one INSERT ...
 * SELECT FROM file(), same rows, same views), the engine on the import's own CSV with its conversions and
 * no check (`ceiling_csv`) and the insert-payload path, alternating rounds, each run in
 * a fresh process and data directory. Two shapes: one daily file of BENCH_IMPORT_ROWS rows, and the same
 * number of rows as BENCH_IMPORT_DAYS daily files in one run (the next file read while one is written).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { median } from '../stats.js'
import { writeAggTradeDays, writeAggTrades } from './dataset.js'

const ROWS = Number(process.env['BENCH_IMPORT_ROWS'] ?? 3_000_000)
/** the run of daily files: the same number of rows over this many files */
const DAYS = Number(process.env['BENCH_IMPORT_DAYS'] ?? 3)
const ENV = { ...process.env, TZ: 'UTC', UV_THREADPOOL_SIZE: '16' }
/**
 * import / ceiling / payload: one daily file; import_days / ceiling_days: DAYS daily files of the same total
 * (the next file read while the current one is written) and the engine taking all their rows at once;
 * import_staged: the one file through the staging table (every file staged), for comparison.
 */
const VARIANTS = [
  'import',
  'ceiling',
  'ceiling_csv',
  'payload',
  'import_days',
  'ceiling_days',
  'ceiling_csv_days',
  'import_staged'
] as const

export async function importBench(rounds: number): Promise<Record<string, unknown>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-import-'))
  try {
    // recent times: the raw rows stay inside the 90-day TTL while the run checks them
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000
    const csv = path.join(work, 'BTCUSDT-aggTrades-2024-01-01.csv')
    const tsv = path.join(work, 'trades.tsv')
    writeAggTrades(ROWS, csv, tsv, today - 2 * 86_400_000)
    const daysDir = fs.mkdtempSync(path.join(work, 'days-'))
    const daysTsv = path.join(work, 'trades-days.tsv')
    const dayFiles = writeAggTradeDays(ROWS, DAYS, daysDir, today - (DAYS + 1) * 86_400_000, daysTsv)
    const inputs: Record<(typeof VARIANTS)[number], [string, string, string]> = {
      import: ['import', csv, tsv],
      import_staged: ['import_staged', csv, tsv],
      ceiling: ['ceiling', csv, tsv],
      ceiling_csv: ['ceiling_csv', csv, tsv],
      payload: ['payload', csv, tsv],
      import_days: ['import', dayFiles.join(','), daysTsv],
      ceiling_days: ['ceiling', dayFiles.join(','), daysTsv],
      ceiling_csv_days: ['ceiling_csv', dayFiles.join(','), daysTsv]
    }
    const runs: Record<string, number[]> = Object.fromEntries(VARIANTS.map((v) => [v, []]))
    const cpu: Record<string, number[]> = Object.fromEntries(VARIANTS.map((v) => [v, []]))
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < VARIANTS.length; i++) {
        const v = VARIANTS[(i + r) % VARIANTS.length]!
        const [variant, files, rowsTsv] = inputs[v]
        const dir = fs.mkdtempSync(path.join(work, 'data-'))
        try {
          const out = execFileSync(
            process.execPath,
            [distPath('bench', 'import', 'variant.js'), variant, dir, files, rowsTsv, String(ROWS)],
            {
              env: ENV,
              encoding: 'utf8'
            }
          )
          const res = JSON.parse(out.trim().split('\n').at(-1)!) as { rows_per_s: number; cpu_s: number }
          runs[v]!.push(res.rows_per_s)
          cpu[v]!.push(res.cpu_s)
          const load = os.loadavg()[0]!.toFixed(1)
          console.log(`import round ${r + 1} ${v}: ${res.rows_per_s} rows/s, ${res.cpu_s} CPU-s (load ${load})`)
        } finally {
          fs.rmSync(dir, { recursive: true, force: true })
        }
      }
    }
    const m = Object.fromEntries(Object.entries(runs).map(([k, xs]) => [k, median(xs)]))
    const c = Object.fromEntries(Object.entries(cpu).map(([k, xs]) => [k, median(xs)]))
    const ratio = (a: string, b: string): number => Math.round((m[a]! / m[b]!) * 100) / 100
    const cpuRatio = (a: string, b: string): number => Math.round((c[a]! / c[b]!) * 100) / 100
    return {
      rows_per_run: ROWS,
      csv_bytes: fs.statSync(csv).size,
      day_files: DAYS,
      dataset: 'data.binance.vision USD-M aggTrades CSV with header, one market, ~40 trades/s, every view attached',
      runs_rows_per_s: runs,
      median_rows_per_s: m,
      import_vs_ceiling: ratio('import', 'ceiling'),
      import_vs_payload: ratio('import', 'payload'),
      import_days_vs_ceiling: ratio('import_days', 'ceiling_days'),
      // the engine's CSV input with the import's conversions and no checks: what the checks cost, and where
      // the engine stands on the CSV against the prepared TSV
      import_vs_ceiling_csv: ratio('import', 'ceiling_csv'),
      import_days_vs_ceiling_csv: ratio('import_days', 'ceiling_csv_days'),
      ceiling_csv_vs_ceiling: ratio('ceiling_csv', 'ceiling'),
      import_staged_vs_ceiling: ratio('import_staged', 'ceiling'),
      // CPU-seconds of the process per run: the work each took, whatever the machine's load
      runs_cpu_s: cpu,
      median_cpu_s: c,
      import_cpu_vs_ceiling: cpuRatio('import', 'ceiling'),
      import_days_cpu_vs_ceiling: cpuRatio('import_days', 'ceiling_days'),
      import_cpu_vs_ceiling_csv: cpuRatio('import', 'ceiling_csv'),
      import_days_cpu_vs_ceiling_csv: cpuRatio('import_days', 'ceiling_csv_days'),
      targets: { import_rows_per_s: 500_000, import_vs_ceiling: 0.8 }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}
