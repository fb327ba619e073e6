/**
 * @module
 * The built server of the scale benchmark on one data dir, its JSON log lines (pino, `LOG_LEVEL=info`) kept
 * with the milliseconds since spawn at which each arrived: the start-up (`listening`), readiness (`ready:
 * serving data`), the demo backfill's end and the compaction after it are read from them.
 */
import { spawn } from 'node:child_process'
import readline from 'node:readline'
import { distPath } from '../../engine/paths.js'
import { BENCH_ADMIN } from '../http/bench-server.js'

export interface LogLine {
  /** ms from the spawn to the line's arrival */
  readonly atMs: number
  readonly msg: string
  readonly fields: Record<string, unknown>
}

export interface ScaleServer {
  readonly base: string
  readonly pid: number
  /** resolves with the first log line whose message contains `text`; rejects when the server exits first */
  line(text: string, timeoutMs: number): Promise<LogLine>
  stop(): Promise<void>
}

/** Spawns `node dist/server/main.js` on `dir` with `env`; returns at once (wait for lines with `line`). */
export function spawnScaleServer(dir: string, port: number, env: Record<string, string>): ScaleServer {
  const t0 = performance.now()
  const child = spawn(process.execPath, [distPath('server', 'main.js')], {
    env: {
      ...process.env,
      TZ: 'UTC',
      UV_THREADPOOL_SIZE: '16',
      DATA_DIR: dir,
      PORT: String(port),
      ADMIN_TOKEN: BENCH_ADMIN,
      LOG_LEVEL: 'info',
      ...env
    },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const lines: LogLine[] = []
  let wake: (() => void) | null = null
  readline.createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      const fields = JSON.parse(text) as Record<string, unknown>
      lines.push({ atMs: performance.now() - t0, msg: String(fields['msg'] ?? ''), fields })
      wake?.()
    } catch {
      // not a log line
    }
  })
  child.on('exit', () => wake?.())
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async line(text, timeoutMs) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = lines.find((l) => l.msg.includes(text))
        if (found) return found
        if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode} before logging "${text}"`)
        if (Date.now() > deadline) throw new Error(`server did not log "${text}" within ${timeoutMs} ms`)
        // woken by a line or the exit, or after 1 s to look at the deadline again
        await new Promise<void>((r) => {
          wake = r
          setTimeout(r, 1000)
        })
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
    }
  }
}
