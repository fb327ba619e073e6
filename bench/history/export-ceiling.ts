/**
 * @module
 * The engine's own ceiling of the candle export, as a child process of bench/history (chDB binds one data
 * directory per process): opens a data dir and, for every JSON line on stdin (`{ format, symbols, fromMs,
 * toMs, file }`), runs the same statement the route runs (same market resolution, same pinning, same
 * settings: `runCandleExport`) and writes its bytes to `file` in process, no HTTP. Answers one JSON line
 * per request on stdout: `{ ms, bytes, cpuS }` (wall ms, bytes written, this process's CPU seconds, chDB's
 * threads included) or `{ error }`.
 *
 * Usage: node dist/bench/history/export-ceiling.js <dataDir>
 */
import fs from 'node:fs'
import readline from 'node:readline'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { runCandleExport } from '../../engine/export/export-run.js'
import type { ExportFormat } from '../../engine/export/encode.js'
import { MarketDirectory } from '../../engine/history/markets.js'

interface CeilingRequest {
  readonly format: ExportFormat
  readonly symbols: readonly string[]
  readonly fromMs: number
  readonly toMs: number
  readonly file: string
}

/** the server's default pool (CHDB_POOL_SIZE 4 > EXPORT_MAX_CONCURRENT 2: merged parts are pinned) */
const POOL = 4

async function main(dir: string): Promise<void> {
  const store = new ChdbStore({ path: dir, poolSize: POOL })
  const markets = new MarketDirectory(store)
  const lines = readline.createInterface({ input: process.stdin })
  for await (const line of lines) {
    const req = JSON.parse(line) as CeilingRequest
    try {
      const list = await markets.resolveList(req.symbols, undefined, { param: 'symbols', everyVenue: true })
      const fd = fs.openSync(req.file, 'w')
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      let bytes = 0
      try {
        const run = runCandleExport(store, {
          timeframe: '1m',
          markets: list,
          fromMs: req.fromMs,
          toMs: req.toMs,
          format: req.format,
          tmpDir: dir,
          synthetic: true,
          pinMerged: true
        })
        for await (const chunk of run) {
          fs.writeSync(fd, chunk)
          bytes += chunk.length
        }
      } finally {
        fs.closeSync(fd)
      }
      const cpu = process.cpuUsage(c0)
      const ms = performance.now() - t0
      process.stdout.write(JSON.stringify({ ms, bytes, cpuS: (cpu.user + cpu.system) / 1e6 }) + '\n')
    } catch (err) {
      process.stdout.write(JSON.stringify({ error: err instanceof Error ? err.message : String(err) }) + '\n')
    }
  }
  await store.close()
}

await main(process.argv[2]!)
