/**
 * @module
 * What every group of `npm run bench` (bench/run.ts) shares: rounds, the load's duration, the child
 * processes' environment, the machine line and scratch directories.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** BENCH_ROUNDS: alternating rounds of each measurement. @default 3 */
export const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3)
/** BENCH_INGEST_DAYS: days of demo-market density per ingest run. @default 6 */
export const INGEST_DAYS = Number(process.env['BENCH_INGEST_DAYS'] ?? 6)
/** BENCH_HTTP_SECONDS: seconds of load per HTTP run. @default 8 */
export const HTTP_SECONDS = Number(process.env['BENCH_HTTP_SECONDS'] ?? 8)
/** The servers' environment: UTC, the libuv pool the service starts with. */
export const ENV = { ...process.env, TZ: 'UTC', UV_THREADPOOL_SIZE: '16' }

/** cores, memory, node and the 1-minute load average when the run started (the machine is shared) */
export const machine = (): string =>
  `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)} at start`
export const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100
export const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'))
