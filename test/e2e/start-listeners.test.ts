/**
 * Starting the built server on every market of the three perpetual venues and Deribit's chains (the local
 * venue servers of the wire benchmark, bench/wire/venues.ts: 521 perpetuals) prints no
 * MaxListenersExceededWarning: no abort signal collects a listener per loop, source or market.
 */
import { fork } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { distPath } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const ADMIN = 'e2e-admin-token-0123456789'

let venues: ReturnType<typeof fork> | undefined
let server: Spawned | undefined
const dir = tmpDir()

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM')
    await server.exited
  }
  if (venues?.connected) {
    const gone = new Promise((r) => venues!.once('exit', r))
    venues.send({ cmd: 'stop' })
    await gone
  }
  dir.cleanup()
})

describe('start with every market', () => {
  it('prints no MaxListenersExceededWarning', async () => {
    venues = fork(distPath('bench', 'wire', 'venues.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    const ready = await new Promise<{ env: Record<string, string>; markets: unknown[] }>((resolve, reject) => {
      venues!.on('message', (m: { ready?: boolean; env: Record<string, string>; markets: unknown[] }) => {
        if (m.ready) resolve(m)
      })
      venues!.once('exit', (code) => reject(new Error(`venue servers exited ${code}`)))
    })
    expect(ready.markets.length).toBeGreaterThan(500)
    server = spawnServer(
      {
        ...ready.env,
        DATA_DIR: dir.dir,
        ADMIN_TOKEN: ADMIN,
        HOST: '127.0.0.1',
        SOURCES: 'binance,bybit,okx,deribit',
        LOG_LEVEL: 'warn',
        TZ: 'UTC'
      },
      await freePort()
    )
    // every source connected: each has started its sockets, pollers and loops
    await waitForHealth(
      server,
      (h) => h['ready'] === true && (h['sources'] as { connected: boolean }[]).every((s) => s.connected),
      240_000
    )
    expect(server.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak detected/)
  }, 300_000)
})
