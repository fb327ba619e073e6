/**
 * The process as operators run it (docs/deployment.md): a second server on a busy port fails instead
 * of sharing it, and `npm start` hands signals to the server, so stopping npm alone (docker stop, many
 * supervisors, `kill <npm pid>`) stops the server cleanly instead of orphaning it.
 */
import { spawn } from 'node:child_process'
import net from 'node:net'
import { describe, it, expect } from 'vitest'
import { projectRoot } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const ADMIN = 'e2e-admin-token-0123456789'

/** Whether something accepts TCP connections on the port. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

async function waitUntil(cond: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (await cond()) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return cond()
}

/** `p`, or an error naming the step and what the servers printed, after `ms` (a hang says where it was). */
async function within<T>(ms: number, step: string, p: Promise<T>, ...servers: Spawned[]): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const out = servers.map((s, i) => `server ${i + 1}:\n${s.stderr.slice(-1500)}\n${s.stdout.slice(-1500)}`)
      reject(new Error(`${step}: no result in ${ms} ms\n${out.join('\n')}`))
    }, ms)
  })
  try {
    return await Promise.race([p, late])
  } finally {
    clearTimeout(timer)
  }
}

describe('one process per port', () => {
  it('a second server on a busy port exits 2 naming PORT/HOST; the first keeps every request', async () => {
    const port = await freePort()
    const a = tmpDir()
    const b = tmpDir()
    const first = spawnServer({ DATA_DIR: a.dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }, port)
    try {
      await within(50_000, 'first server ready', waitForHealth(first, undefined, 50_000), first)
      const second = spawnServer({ DATA_DIR: b.dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }, port)
      const { code } = await within(50_000, 'second server exit', second.exited, first, second)
      expect(code, second.stderr).toBe(2)
      expect(second.stderr).toMatch(/127\.0\.0\.1:\d+.*in use.*PORT\/HOST/)
      // every request still reaches the first server (the second never answered)
      for (let i = 0; i < 10; i++) expect((await fetch(`${first.base}/v1/health`)).status).toBe(200)
    } finally {
      first.child.kill('SIGTERM')
      await within(30_000, 'first server stop', first.exited, first)
      a.cleanup()
      b.cleanup()
    }
  }, 150_000)
})

describe('npm start and signals', () => {
  it('SIGTERM to the npm process alone stops the server cleanly (flushes, frees the port)', async () => {
    const port = await freePort()
    const data = tmpDir()
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: projectRoot(),
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '/tmp',
        PORT: String(port),
        DATA_DIR: data.dir,
        SOURCES: 'none',
        ADMIN_TOKEN: ADMIN,
        LOG_LEVEL: 'info'
      },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    npm.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    npm.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    const exited = new Promise<number | null>((r) => npm.on('exit', (code) => r(code)))
    try {
      const up = await waitUntil(
        () =>
          fetch(`http://127.0.0.1:${port}/v1/health`).then(
            (r) => r.status === 200,
            () => false
          ),
        40_000
      )
      expect(up, out).toBe(true)
      npm.kill('SIGTERM') // npm's own pid only, as docker stop or `kill <npm pid>` would
      await exited
      // the server got the signal: it flushed and closed, and nothing listens on the port any more
      expect(await waitUntil(async () => !(await accepting(port)), 15_000), out).toBe(true)
      await waitUntil(async () => out.includes('ingest flushed'), 5_000)
      expect(out).toContain('ingest flushed')
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL')
      data.cleanup()
    }
  }, 90_000)
})
