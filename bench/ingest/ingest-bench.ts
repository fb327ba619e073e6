/**
 * @module
 * The ingest group of `npm run bench`: rows/s of the e2e path vs the naive client.insert JSONEachRow path
 * and the engine ceiling (pre-built TSV), same rows, same schema with every view; each run in a fresh
 * process and data dir (bench/ingest/variant.ts), the three alternating.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { distPath } from '../../engine/paths.js'
import { median } from '../stats.js'
import { ENV, INGEST_DAYS, ROUNDS, ratio, tmp } from '../run-settings.js'

function ingestRun(variant: string): { rows: number; rows_per_s: number } {
  const dir = tmp()
  try {
    const out = execFileSync(
      process.execPath,
      [distPath('bench', 'ingest', 'variant.js'), variant, dir, String(INGEST_DAYS)],
      {
        env: ENV,
        encoding: 'utf8'
      }
    )
    return JSON.parse(out.trim().split('\n').at(-1)!) as { rows: number; rows_per_s: number }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export async function ingest(): Promise<Record<string, unknown>> {
  const variants = ['e2e', 'naive', 'ceiling']
  const runs: Record<string, number[]> = { e2e: [], naive: [], ceiling: [] }
  let rows = 0
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + r) % variants.length]!
      const res = ingestRun(v)
      rows = res.rows
      runs[v]!.push(res.rows_per_s)
      console.log(`ingest round ${r + 1} ${v}: ${res.rows_per_s} rows/s`)
    }
  }
  const m = Object.fromEntries(Object.entries(runs).map(([k, xs]) => [k, median(xs)]))
  return {
    rows_per_run: rows,
    dataset: `demo market, ${INGEST_DAYS} days backfill density, all record kinds, every view attached`,
    runs_rows_per_s: runs,
    median_rows_per_s: m,
    e2e_vs_ceiling: ratio(m['e2e']!, m['ceiling']!),
    e2e_vs_naive: ratio(m['e2e']!, m['naive']!),
    targets: { e2e_vs_ceiling: 0.7, e2e_vs_naive: 2 }
  }
}
