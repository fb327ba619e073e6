import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { projectRoot } from '../../engine/paths.js'

export const MAIN = path.join(projectRoot(), 'dist', 'server', 'main.js')

export { freePort } from '../../bench/free-port.js'

export interface Spawned {
  readonly child: ChildProcess
  readonly base: string
  stdout: string
  stderr: string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Runs the built server (dist/server/main.js) as a child process with `env` over a clean environment. Its
 * stdout is a pipe this process reads into `stdout`, unless `stdoutFd` names a descriptor to hand it instead.
 */
export function spawnServer(env: Record<string, string>, port = 0, stdoutFd?: number): Spawned {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      LOG_LEVEL: 'info',
      PORT: String(port),
      ...env
    },
    stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe']
  })
  const out: Spawned = {
    child,
    base: `http://127.0.0.1:${port}`,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  }
  child.stdout?.on('data', (d: Buffer) => (out.stdout += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()))
  return out
}

/**
 * Polls /v1/health until `ready(body)` holds (by default: the service reports `ready`, so data endpoints
 * answer); throws with the server's output after `timeoutMs`.
 */
export async function waitForHealth(
  s: Spawned,
  ready: (body: Record<string, any>) => boolean = (b) => b['ready'] === true,
  timeoutMs = 60_000
): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < until) {
    if (s.child.exitCode !== null) throw new Error(`server exited ${s.child.exitCode}: ${s.stderr}${s.stdout}`)
    try {
      const res = await fetch(`${s.base}/v1/health`)
      if (res.status === 200) {
        const body = (await res.json()) as Record<string, any>
        last = body
        if (ready(body)) return body
      }
    } catch (err) {
      last = err
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(
    `health not ready in ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${s.stderr}\n${s.stdout.slice(-2000)}`
  )
}
