/**
 * @module
 * `npm run bench -- import`: rows/s of `tidewatch import` on a data.binance.vision aggTrades CSV (target
 * >= 500,000 rows/s) against the engine ceiling of the same path (pre-built TSV through one INSERT ...
 * SELECT FROM file(), same rows, same views) and the insert-payload path, alternating rounds, each run in
 * a fresh process and data directory.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { median } from '../stats.js'
import { writeAggTrades } from './dataset.js'

const ROWS = Number(process.env['BENCH_IMPORT_ROWS'] ?? 3_000_000)
const ENV = { ...process.env, TZ: 'UTC', UV_THREADPOOL_SIZE: '16' }
const VARIANTS = ['import', 'ceiling', 'payload'] as const

export async function importBench(rounds: number): Promise<Record<string, unknown>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-import-'))
  try {
    // recent times: the raw rows stay inside the 90-day TTL while the run checks them
    const csv = path.join(work, 'BTCUSDT-aggTrades-2024-01-01.csv')
    const tsv = path.join(work, 'trades.tsv')
    writeAggTrades(ROWS, csv, tsv, Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000)
    const runs: Record<string, number[]> = { import: [], ceiling: [], payload: [] }
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < VARIANTS.length; i++) {
        const v = VARIANTS[(i + r) % VARIANTS.length]!
        const dir = fs.mkdtempSync(path.join(work, 'data-'))
        try {
          const out = execFileSync(
            process.execPath,
            [distPath('bench', 'import', 'variant.js'), v, dir, csv, tsv, String(ROWS)],
            {
              env: ENV,
              encoding: 'utf8'
            }
          )
          const res = JSON.parse(out.trim().split('\n').at(-1)!) as { rows_per_s: number }
          runs[v]!.push(res.rows_per_s)
          console.log(`import round ${r + 1} ${v}: ${res.rows_per_s} rows/s`)
        } finally {
          fs.rmSync(dir, { recursive: true, force: true })
        }
      }
    }
    const m = Object.fromEntries(Object.entries(runs).map(([k, xs]) => [k, median(xs)]))
    return {
      rows_per_run: ROWS,
      csv_bytes: fs.statSync(csv).size,
      dataset: 'data.binance.vision USD-M aggTrades CSV with header, one market, ~40 trades/s, every view attached',
      runs_rows_per_s: runs,
      median_rows_per_s: m,
      import_vs_ceiling: Math.round((m['import']! / m['ceiling']!) * 100) / 100,
      import_vs_payload: Math.round((m['import']! / m['payload']!) * 100) / 100,
      targets: { import_rows_per_s: 500_000 }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}
