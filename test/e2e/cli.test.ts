/**
 * The `tidewatch` CLI (bin/tidewatch.js over dist/) against the built server, as a user runs them: the admin
 * token comes from DATA_DIR/admin_token (ADMIN_TOKEN unset); a created key works, is listed, and stops working
 * at once when revoked; exit codes 1 (server error, unreachable) and 2 (usage). Needs `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { CLI_BIN, runNode } from '../helpers/run-node.js'

/** `tidewatch ...args` over a clean environment plus `env` (no ADMIN_TOKEN, no PORT) */
const cli = (args: readonly string[], env: Record<string, string>) => runNode([CLI_BIN, ...args], env)
const KEY = /tw_live_[a-z0-9]{10}_[A-Za-z0-9_-]{43}/

describe('tidewatch keys (CLI against the built server)', () => {
  let tmp: ReturnType<typeof tmpDir> | undefined
  let server: Spawned | undefined
  let env: Record<string, string>
  let id = ''
  let key = ''

  const usage = (k: string): Promise<Response> => fetch(`${server!.base}/v1/usage`, { headers: { 'x-api-key': k } })

  beforeAll(async () => {
    tmp = tmpDir()
    server = spawnServer({ DATA_DIR: tmp.dir, SOURCES: 'none' }, await freePort())
    await waitForHealth(server)
    env = { TIDEWATCH_URL: server.base, DATA_DIR: tmp.dir }
  })

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    tmp?.cleanup()
  })

  it('creates a key that works on its plan', async () => {
    const r = await cli(['keys', 'create', '--plan', 'pro', '--name', 'desk bot'], env)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    key = KEY.exec(r.stdout)?.[0] ?? ''
    expect(key, r.stdout).not.toBe('')
    id = /^id: +(\S+)$/m.exec(r.stdout)?.[1] ?? ''
    expect(key.startsWith(`tw_live_${id}_`)).toBe(true)
    expect(r.stdout).toMatch(/shown only this once/)

    const res = await usage(key)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { key_id: string; plan: string; name: string }
    expect(body).toMatchObject({ key_id: id, plan: 'pro', name: 'desk bot' })
  })

  it('lists the key as a table and as JSON, never with its secret', async () => {
    const table = await cli(['keys', 'list'], env)
    expect(table.code).toBe(0)
    const row = table.stdout.split('\n').find((l) => l.startsWith(id))
    expect(row).toMatch(/\bpro\b.*desk bot/)
    expect(table.stdout).not.toContain(key)

    const json = await cli(['keys', 'list', '--json'], env)
    expect(json.code).toBe(0)
    const { keys } = JSON.parse(json.stdout) as { keys: { id: string; plan: string; revoked_at: string | null }[] }
    expect(keys.find((k) => k.id === id)).toMatchObject({ plan: 'pro', revoked_at: null })
    expect(json.stdout).not.toContain(key)
  })

  it('revokes the key: the next call with it answers 401', async () => {
    const r = await cli(['keys', 'revoke', id], env)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(id)
    expect((await usage(key)).status).toBe(401)

    const json = await cli(['keys', 'list', '--json'], env)
    const { keys } = JSON.parse(json.stdout) as { keys: { id: string; revoked_at: string | null }[] }
    expect(keys.find((k) => k.id === id)?.revoked_at).toEqual(expect.any(String))
  })

  it('exits 1 with the server message for an unknown id', async () => {
    const r = await cli(['keys', 'revoke', 'zzzzzzzzzz'], env)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('tidewatch: no API key with id zzzzzzzzzz\n')
  })

  it('exits 2 with usage naming the accepted plans for --plan gold, creating nothing', async () => {
    const before = JSON.parse((await cli(['keys', 'list', '--json'], env)).stdout) as { keys: unknown[] }
    const r = await cli(['keys', 'create', '--plan', 'gold'], env)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('free, trader, pro, enterprise')
    expect(r.stderr).toContain('Usage:')
    const after = JSON.parse((await cli(['keys', 'list', '--json'], env)).stdout) as { keys: unknown[] }
    expect(after.keys).toHaveLength(before.keys.length)
  })

  it('exits 2 for an unknown command and 0 for --help', async () => {
    const bad = await cli(['keys', 'rotate'], env)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('unknown keys command "rotate"')
    const help = await cli(['--help'], env)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('tidewatch keys create')
  })

  it('exits 1 with one line when the server is unreachable', async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const r = await cli(['keys', 'list'], { ...env, TIDEWATCH_URL: url })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`tidewatch: cannot reach the server at ${url} (is it running?)\n`)
  })

  it('stops the server cleanly on SIGTERM', async () => {
    server!.child.kill('SIGTERM')
    expect((await server!.exited).code).toBe(0)
  })
})
