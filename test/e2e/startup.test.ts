import fs from 'node:fs'
import path from 'node:path'
import { describe, it, expect } from 'vitest'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const ADMIN = 'e2e-admin-token-0123456789'

describe('start-up failures exit non-zero with one line naming the cause', () => {
  it.each([
    [{ PORT: 'abc' }, /^tidewatch: invalid configuration: PORT must be an integer from 0 to 65535 \(got 'abc'\)\n$/],
    [
      { SOURCES: 'sim,kraken' },
      /^tidewatch: invalid configuration: SOURCES must be a comma list of sim, binance, bybit, okx, deribit, bitget, live, none/
    ],
    [{ SIM_SEED: 'x' }, /^tidewatch: invalid configuration: SIM_SEED must be an integer/]
  ])('bad configuration %o', async (env, line) => {
    const { dir, cleanup } = tmpDir()
    const s = spawnServer({ DATA_DIR: dir, ...(env as Record<string, string>) }, await freePort())
    const { code } = await s.exited
    expect(code).toBe(2)
    expect(s.stderr).toMatch(line)
    expect(s.stderr.trim().split('\n')).toHaveLength(1)
    expect(fs.readdirSync(dir)).toEqual([]) // nothing created
    cleanup()
  })

  it('a foreign DATA_DIR is refused and left untouched', async () => {
    const { dir, cleanup } = tmpDir()
    fs.writeFileSync(path.join(dir, 'precious.txt'), 'do not touch')
    const s = spawnServer({ DATA_DIR: dir, SOURCES: 'none' }, await freePort())
    expect((await s.exited).code).toBe(2)
    expect(s.stderr).toContain('is not empty and is not a Tidewatch data directory')
    expect(fs.readdirSync(dir)).toEqual(['precious.txt'])
    expect(fs.readFileSync(path.join(dir, 'precious.txt'), 'utf8')).toBe('do not touch')
    cleanup()
  })

  it('a DATA_DIR that is a file is refused', async () => {
    const { dir, cleanup } = tmpDir()
    const file = path.join(dir, 'f')
    fs.writeFileSync(file, 'x')
    const s = spawnServer({ DATA_DIR: file, SOURCES: 'none' }, await freePort())
    expect((await s.exited).code).toBe(2)
    expect(s.stderr).toMatch(/^tidewatch: DATA_DIR .* is not a directory\n$/)
    expect(fs.readFileSync(file, 'utf8')).toBe('x')
    cleanup()
  })
})

describe('npm start with the demo market', () => {
  it('backfills, goes live labelled synthetic, shuts down cleanly, and resumes without redoing the backfill', async () => {
    const { dir, cleanup } = tmpDir()
    const env = { DATA_DIR: dir, SIM_BACKFILL_DAYS: '1', ADMIN_TOKEN: ADMIN, SIM_SEED: '7' }
    const s = spawnServer(env, await freePort())
    const live = await waitForHealth(s, (b) => b['sources']?.[0]?.phase === 'live', 90_000)
    expect(live).toMatchObject({ status: 'ok', store: { kind: 'chdb' }, sources: [{ name: 'sim', synthetic: true }] })
    expect(live['ingest'].written).toBeGreaterThan(100_000)
    expect(live['ingest'].failed).toBe(0)
    expect(s.stdout).toContain('all data from this source is SYNTHETIC')
    s.child.kill('SIGTERM')
    expect((await s.exited).code).toBe(0)
    const flushed = s.stdout.split('\n').find((l) => l.includes('ingest flushed'))
    expect(JSON.parse(flushed!)).toMatchObject({ queued: 0, failed: 0 })

    const again = spawnServer(env, await freePort())
    const resumed = await waitForHealth(again, (b) => b['sources']?.[0]?.phase === 'live', 60_000)
    expect(resumed['sources'][0].rows).toBeLessThan(50_000) // no second backfill: only live windows since the stop
    again.child.kill('SIGTERM')
    expect((await again.exited).code).toBe(0)
    cleanup()
  })
})
