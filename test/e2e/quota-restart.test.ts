/** Today's call counts survive a restart of the server process (persisted in the store). */
import { describe, it, expect } from 'vitest'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { jsonBody } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const ADMIN = 'e2e-admin-token-0123456789'

describe('daily quota across a restart', () => {
  it('keeps the counts of a key', async () => {
    const { dir, cleanup } = tmpDir()
    const env = { DATA_DIR: dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }
    const a = spawnServer(env, await freePort())
    await waitForHealth(a)
    const created = await jsonBody(
      await fetch(`${a.base}/v1/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}` },
        body: '{"plan":"free"}'
      })
    )
    for (let i = 0; i < 9; i++) {
      const res = await fetch(`${a.base}/v1/options/chain`, { headers: { 'x-api-key': created.key } })
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit-remaining')).toBe(String(199 - i))
    }
    a.child.kill('SIGTERM')
    expect((await a.exited).code).toBe(0)

    const b = spawnServer(env, await freePort())
    await waitForHealth(b)
    const usage = await jsonBody(await fetch(`${b.base}/v1/usage`, { headers: { 'x-api-key': created.key } }))
    expect(usage).toMatchObject({ calls_today: 9, remaining: 191, limit: 200 })
    const next = await fetch(`${b.base}/v1/options/chain`, { headers: { 'x-api-key': created.key } })
    expect(next.headers.get('ratelimit-remaining')).toBe('190')
    b.child.kill('SIGTERM')
    expect((await b.exited).code).toBe(0)
    cleanup()
  })
})
