/**
 * `npm start` run as a terminal runs it, for the stop tests (test/e2e/signal-stops.test.ts): npm and the
 * server in their own process group, over a clean environment, with their output kept; and a poll that gives
 * up, with that output, when the process exits or the time runs out.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { projectRoot } from '../../engine/paths.js'

export interface Npm {
  readonly child: ChildProcess
  readonly base: string
  out: string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** `npm start` in its own process group (as a terminal runs it: npm and the server in one group). */
export function npmStart(env: Record<string, string>, port: number): Npm {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: projectRoot(),
    detached: true,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const s: Npm = {
    child,
    base: `http://127.0.0.1:${port}`,
    out: '',
    exited: new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })))
  }
  child.stdout!.on('data', (d: Buffer) => (s.out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (s.out += d.toString()))
  return s
}

/**
 * `fn`'s first defined answer, tried every 100 ms (a throw counts as undefined); throws naming `what` (with
 * `s`'s output) once `ms` ms have passed or `s` has exited.
 */
export async function poll<T>(what: string, fn: () => Promise<T | undefined>, ms: number, s?: Npm): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn().catch(() => undefined)
    if (v !== undefined) return v
    if (s && s.child.exitCode !== null)
      throw new Error(`${what}: npm exited ${s.child.exitCode}\n${s.out.slice(-3000)}`)
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms\n${s?.out.slice(-3000) ?? ''}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
