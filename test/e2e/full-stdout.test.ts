/**
 * A server whose stdout is a full pipe nobody reads (a log shipper that hung, `npm start | less` left
 * paused) still ends when stopped: its last log lines wait a bounded time for room and are then dropped,
 * so a clean stop exits 0 and a forced exit reaches its SIGKILL. The pipe is a FIFO filled before the process
 * starts, opened non-blocking as a process manager's log pipe is, and never read while the process runs.
 * The forced exit runs in a small child over the built logger and forceExit (test/helpers/force-exit-child.mjs):
 * a server's stop with nothing to do ends before a second signal is read, so forcing it would need a stop
 * held open by timing.
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { projectRoot } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

interface FullPipe {
  /** the write end, to hand to the server as its stdout */
  readonly writeFd: number
  /** bytes written before the server started (the pipe's whole capacity) */
  readonly filled: number
  close(): void
}

/** A FIFO in `dir` whose buffer is full: written until the kernel refuses more (EAGAIN). */
function fullPipe(dir: string): FullPipe {
  const fifo = path.join(dir, 'stdout.fifo')
  execFileSync('mkfifo', [fifo])
  const readFd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  const writeFd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)
  const chunk = Buffer.alloc(4096, 0x2e)
  let filled = 0
  for (;;) {
    try {
      filled += fs.writeSync(writeFd, chunk)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break
      throw err
    }
  }
  return {
    writeFd,
    filled,
    close: () => {
      fs.closeSync(writeFd)
      fs.closeSync(readFd)
    }
  }
}

const open: Array<() => void> = []
afterEach(() => {
  for (const close of open.splice(0)) close()
})

async function startBehindFullPipe(): Promise<Spawned> {
  const data = tmpDir('tidewatch-full-stdout-')
  const pipe = fullPipe(data.dir)
  expect(pipe.filled).toBeGreaterThanOrEqual(4096)
  const s = spawnServer({ DATA_DIR: path.join(data.dir, 'data'), SOURCES: 'none' }, await freePort(), pipe.writeFd)
  open.push(() => {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
    pipe.close()
    data.cleanup()
  })
  await waitForHealth(s)
  return s
}

describe('a server whose stdout is a full pipe nobody reads', () => {
  it('ends a clean stop with status 0', async () => {
    const s = await startBehindFullPipe()
    s.child.kill('SIGTERM')
    expect(await s.exited).toEqual({ code: 0, signal: null })
  }, 60_000)

  it('ends a forced exit killed by its own SIGKILL', async () => {
    const data = tmpDir('tidewatch-full-stdout-')
    const pipe = fullPipe(data.dir)
    open.push(() => {
      pipe.close()
      data.cleanup()
    })
    const child = spawn(process.execPath, [path.join(projectRoot(), 'test', 'helpers', 'force-exit-child.mjs')], {
      stdio: ['ignore', pipe.writeFd, 'pipe']
    })
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = await new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
    expect(stderr).toBe('')
    expect(exited).toEqual({ code: null, signal: 'SIGKILL' })
  }, 60_000)
})
