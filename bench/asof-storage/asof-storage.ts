/**
 * @module
 * `npm run bench -- asof-storage`: what point-in-time answers cost on disk. The same demo-market days are
 * written twice (receive time per row = event time, and stamped per insert by the store; storage-run.ts),
 * each in a fresh process and data directory; the figures are bytes per day per market of everything
 * stored, of what as_of adds (the receive-time columns and the known-at ledger) and of the ledger alone, and
 * the ratio of everything to the same data stored without them (target: at most 2x). Sizes are deterministic for a given chDB version (no rounds).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'

const DAYS = Number(process.env['BENCH_ASOF_DAYS'] ?? 7)

interface Run {
  readonly variant: string
  readonly days: number
  readonly rows: number
  readonly markets: number
  readonly total_bytes: number
  readonly without_asof_bytes: number
  readonly known_at_bytes: number
}

function run(variant: 'event' | 'store'): Run {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-asof-'))
  try {
    const out = execFileSync(
      process.execPath,
      [distPath('bench', 'asof-storage', 'storage-run.js'), variant, dir, String(DAYS)],
      { env: { ...process.env, TZ: 'UTC' }, encoding: 'utf8', maxBuffer: 1 << 24 }
    )
    return JSON.parse(out.trim().split('\n').at(-1)!) as Run
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const perDayMarket = (r: Run, bytes: number): number => Math.round(bytes / r.days / r.markets)

export function asofStorageBench(): Record<string, unknown> {
  const out: Record<string, unknown> = { days: DAYS }
  for (const variant of ['event', 'store'] as const) {
    const r = run(variant)
    const without = r.without_asof_bytes
    out[variant] = {
      ...r,
      bytes_per_day_per_market: {
        total: perDayMarket(r, r.total_bytes),
        asof: perDayMarket(r, r.total_bytes - without),
        known_at_1h: perDayMarket(r, r.known_at_bytes),
        without_asof: perDayMarket(r, without)
      },
      ratio_to_without_asof: Math.round((r.total_bytes / without) * 1000) / 1000
    }
    console.log(`asof-storage ${variant}: ${JSON.stringify(out[variant])}`)
  }
  return out
}
