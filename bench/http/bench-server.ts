/**
 * @module
 * Starts the built server for an HTTP benchmark in a fresh temporary data dir and waits until `ready`
 * holds for its health answer; `stop` ends it (SIGTERM) and removes the dir.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
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
  /** an existing data dir to serve (removed on stop like a fresh one) */
  existingDir?: string
): Promise<BenchServer & { readonly pid: number }> {
  const dir = existingDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'))
  const child = spawn(process.execPath, [distPath('server', 'main.js')], {
    env: {
      ...process.env,
      TZ: 'UTC',
      DATA_DIR: dir,
      PORT: String(port),
      ADMIN_TOKEN: BENCH_ADMIN,
      LOG_LEVEL: 'warn',
      ...env
    },
    stdio: ['ignore', 'ignore', 'inherit']
  })
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
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
