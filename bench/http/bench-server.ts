/**
 * @module
 * Starts the built server for an HTTP benchmark in a fresh temporary data dir and waits until `ready`
 * holds for its health answer; `stop` ends it (SIGTERM) and removes the dir.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { distPath } from '../../engine/paths.js'

export const BENCH_ADMIN = 'bench-admin-token-0123456789'

export interface BenchServer {
  readonly base: string
  readonly dir: string
  stop(): Promise<void>
}

export async function startBenchServer(
  port: number,
  env: Record<string, string>,
  ready: (health: { sources: { phase?: string }[] }) => boolean = () => true,
  /** an existing data dir to serve (removed on stop like a fresh one, unless `keepDir`) */
  existingDir?: string,
  opts: {
    /** each line the server logs on stdout (stdout is discarded without it) */
    readonly onStdoutLine?: (line: string) => void
    /** `stop` leaves the data dir (the caller reads or copies it afterwards) */
    readonly keepDir?: boolean
    /** node options before the script (`--perf-basic-prof` for a profiled run) */
    readonly nodeArgs?: readonly string[]
    /** the server's entry script (default: this build's dist/server/main.js; another build's for a comparison) */
    readonly script?: string
  } = {}
): Promise<BenchServer & { readonly pid: number }> {
  const dir = existingDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'))
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.script ?? distPath('server', 'main.js')], {
    env: {
      ...process.env,
      TZ: 'UTC',
      DATA_DIR: dir,
      PORT: String(port),
      ADMIN_TOKEN: BENCH_ADMIN,
      LOG_LEVEL: 'warn',
      ...env
    },
    stdio: ['ignore', opts.onStdoutLine ? 'pipe' : 'ignore', 'inherit']
  })
  if (opts.onStdoutLine) readline.createInterface({ input: child.stdout! }).on('line', opts.onStdoutLine)
  const base = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bench server exited ${child.exitCode}`)
    const h = await fetch(`${base}/v1/health`).then(
      (r) => (r.ok ? r.json() : null),
      () => null
    )
    if (h && ready(h as { sources: { phase?: string }[] })) break
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    base,
    dir,
    pid: child.pid!,
    /** idempotent: a second call (a `finally` after an early stop) returns at once */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      if (!opts.keepDir) fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** A new enterprise key (no history depth limit, export allowed). */
export async function enterpriseKey(base: string): Promise<string> {
  const res = await fetch(`${base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan: 'enterprise', name: 'bench' })
  })
  if (!res.ok) throw new Error(`key creation answered ${res.status}`)
  return ((await res.json()) as { key: string }).key
}
