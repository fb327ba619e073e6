/**
 * Accounts over real HTTP against the real server (chDB store, uWS on a loopback port), docs/accounts.md: owner
 * sign-up, invites, SIGNUP=open, login and logout, the session cookie's flags and Secure rule, the session
 * standing in for a key (confirm, webhooks), keys made in the account calling /v1/confirm and the usage
 * view counting them, the owner's plan changes followed by the member's keys, and the admin-token API.
 * Security refusals (CSRF, throttling, isolation, ended sessions) are in account-security.test.ts.
 */
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { AccountClient } from './account-client.js'

const PASSWORD = 'correct horse battery'

describe('accounts: sign-up, sessions, keys and usage', () => {
  let srv: Awaited<ReturnType<typeof startTestServer>>
  let owner: AccountClient
  let member: AccountClient

  beforeAll(async () => {
    srv = await startTestServer({ TRUSTED_PROXY_HOPS: '1' })
    owner = new AccountClient(srv.base)
    member = new AccountClient(srv.base)
  })
  afterAll(async () => srv.stop())

  it('the first sign-up is the owner on the enterprise plan, with a session cookie and a CSRF token', async () => {
    const res = await owner.signup('Owner@Example.com ', PASSWORD)
    expect(res.status).toBe(201)
    expect(res.body.account).toMatchObject({ email: 'owner@example.com', role: 'owner', plan: 'enterprise' })
    expect(res.body.account.id).toMatch(/^[0-9a-f]{16}$/)
    expect(res.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(owner.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const me = await owner.call('GET', '/v1/account')
    expect(me.status).toBe(200)
    expect(me.body).toEqual({ account: res.body.account, csrf_token: res.body.csrf_token })
  })

  it('sets the cookie HttpOnly, SameSite=Lax, Path=/, and Secure only behind a trusted TLS proxy', async () => {
    const plain = await owner.login('owner@example.com', PASSWORD)
    expect(plain.status).toBe(200)
    const cookie = plain.cookies.find((c) => c.startsWith('tw_session='))!
    const flags = cookie.split(';').map((s) => s.trim())
    expect(flags).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=2592000']))
    expect(flags).not.toContain('Secure')
    const tls = await owner.call('POST', '/v1/account/login', {
      body: { email: 'owner@example.com', password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' }
    })
    expect(tls.status).toBe(200)
    expect(tls.cookies.find((c) => c.startsWith('tw_session='))).toMatch(/; Secure/)
  })

  it('refuses a second sign-up without an invite, accepts it with one, and spends the invite', async () => {
    const refused = await member.signup('member@example.com', PASSWORD)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({ code: 'invalid_parameter', param: 'invite' })
    expect(member.cookie).toBeUndefined()

    const invite = await owner.call('POST', '/v1/account/invites')
    expect(invite.status).toBe(201)
    expect(invite.body.url).toBe(`/signup?invite=${invite.body.token}`)
    expect(Date.parse(invite.body.expires_at)).toBeGreaterThan(Date.now() + 6 * 86_400_000)

    const bogus = await member.signup('member@example.com', PASSWORD, 'x'.repeat(43))
    expect(bogus.status).toBe(400)
    const ok = await member.signup('member@example.com', PASSWORD, invite.body.token)
    expect(ok.status).toBe(201)
    expect(ok.body.account).toMatchObject({ role: 'member', plan: 'free' })

    const again = await new AccountClient(srv.base).signup('third@example.com', PASSWORD, invite.body.token)
    expect(again.status).toBe(400)
    expect(again.body.error.param).toBe('invite')
    const taken = await new AccountClient(srv.base).signup('member@example.com', PASSWORD, 'y'.repeat(43))
    expect([400, 409]).toContain(taken.status)
  })

  it('refuses a short password and a malformed email with 400 naming the field', async () => {
    const c = new AccountClient(srv.base)
    expect((await c.signup('new@example.com', 'short')).body.error.param).toBe('password')
    expect((await c.signup('not-an-email', PASSWORD)).body.error.param).toBe('email')
  })

  it('lists the accounts for the owner only; the owner sets a plan and the member keys follow', async () => {
    const list = await owner.call('GET', '/v1/account/accounts')
    expect(list.status).toBe(200)
    expect(list.body.accounts.map((a: { email: string }) => a.email)).toEqual([
      'owner@example.com',
      'member@example.com'
    ])
    expect((await member.call('GET', '/v1/account/accounts')).status).toBe(403)
    expect((await member.call('POST', '/v1/account/invites')).status).toBe(403)

    // free plan: no webhooks feature under the session
    expect((await member.call('GET', '/v1/webhooks')).status).toBe(403)
    const memberId = list.body.accounts[1].id
    const patched = await owner.call('PATCH', `/v1/account/accounts/${memberId}`, { body: { plan: 'pro' } })
    expect(patched.status).toBe(200)
    expect(patched.body.account).toMatchObject({ id: memberId, plan: 'pro' })
    const keys = await member.call('GET', '/v1/account/keys')
    expect(keys.body.keys).toEqual([expect.objectContaining({ name: 'dashboard', plan: 'pro', revoked_at: null })])
    expect((await member.call('GET', '/v1/webhooks')).status).toBe(200)
    expect((await member.call('GET', '/v1/account')).body.account.plan).toBe('pro')
    expect((await owner.call('PATCH', '/v1/account/accounts/0000000000000000', { body: { plan: 'pro' } })).status).toBe(
      404
    )
  })

  it('a key created in the account calls /v1/confirm and the usage view counts it, with last use', async () => {
    const created = await member.call('POST', '/v1/account/keys', { body: { name: 'bot' } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ name: 'bot', plan: 'pro' })
    expect(created.body.key).toMatch(/^tw_live_/)
    const before = await member.call('GET', '/v1/account/usage')
    expect(before.status).toBe(200)
    const row = (u: typeof before) => u.body.keys.find((k: { id: string }) => k.id === created.body.id)
    expect(row(before)).toMatchObject({ plan: 'pro', quota_per_day: 15_000, used_today: 0 })
    expect(row(before).days).toHaveLength(30)
    const today = new Date().toISOString().slice(0, 10)
    expect(row(before).days.at(-1)).toEqual({ day: today, calls: 0, throttled: 0 })
    expect(row(before).days[0].day < row(before).days[29].day).toBe(true)

    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=long`, {
        headers: { 'x-api-key': created.body.key }
      })
      expect(r.status).toBeLessThan(500)
      expect(r.headers.get('ratelimit-limit')).toBe('15000')
    }
    const after = await member.call('GET', '/v1/account/usage')
    expect(row(after)).toMatchObject({ used_today: 3 })
    expect(row(after).days.at(-1)).toEqual({ day: today, calls: 3, throttled: 0 })
    expect(Date.parse(row(after).reset_at) - Date.now()).toBeLessThanOrEqual(86_400_000)
    const keys = await member.call('GET', '/v1/account/keys')
    const bot = keys.body.keys.find((k: { id: string }) => k.id === created.body.id)
    expect(Date.parse(bot.last_used_at)).toBeGreaterThan(Date.now() - 60_000)
  })

  it('serves keyed routes under the session as the dashboard key, counted in its usage', async () => {
    const usage = async () =>
      (await owner.call('GET', '/v1/account/usage')).body.keys.find((k: { name: string }) => k.name === 'dashboard')
    const before = (await usage()).used_today
    const r = await owner.call('GET', '/v1/usage')
    expect(r.status).toBe(200)
    expect(r.body.name).toBe('dashboard')
    expect(r.body.plan).toBe('enterprise')
    const c = await owner.call('GET', '/v1/confirm?symbol=BTC&direction=long')
    expect(c.status).toBeLessThan(500)
    expect(c.status).not.toBe(401)
    expect((await usage()).used_today).toBe(before + 1)
    // without the cookie the same request is anonymous
    expect((await owner.call('GET', '/v1/usage', { cookie: false })).status).toBe(401)
  })

  it('rotates a key alert secret and answers a TradingView message carrying it', async () => {
    const keys = await owner.call('GET', '/v1/account/keys')
    const dash = keys.body.keys[0]
    const res = await owner.call('POST', `/v1/account/keys/${dash.id}/alert-secret`)
    expect(res.status).toBe(201)
    expect(res.body.alert_url).toBe('/v1/tradingview/webhook')
    expect(res.body.secret).toMatch(new RegExp(`^tw_alert_${dash.id}_`))
    const message = JSON.parse(res.body.message_template.replace('{{close}}', '1'))
    expect(message).toMatchObject({ secret: res.body.secret, symbol: '{{exchange}}:{{ticker}}' })
  })

  it('revokes a key of the account (it stops working) but not the dashboard key', async () => {
    const created = await owner.call('POST', '/v1/account/keys', { body: { name: 'temp' } })
    const call = () => fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': created.body.key } })
    expect((await call()).status).toBe(200)
    const del = await owner.call('DELETE', `/v1/account/keys/${created.body.id}`)
    expect(del.status).toBe(204)
    expect((await call()).status).toBe(401)
    const listed = (await owner.call('GET', '/v1/account/keys')).body.keys
    expect(listed.find((k: { id: string }) => k.id === created.body.id)).toMatchObject({ dashboard: false })
    expect(listed.find((k: { id: string }) => k.id === created.body.id).revoked_at).not.toBeNull()
    // the list names the key the session stands in for, the one revoking refuses
    const dash = listed.find((k: { dashboard: boolean }) => k.dashboard)
    expect(dash.name).toBe('dashboard')
    const refused = await owner.call('DELETE', `/v1/account/keys/${dash.id}`)
    expect(refused.status).toBe(400)
    expect(refused.body.error.param).toBe('id')
  })

  it('logout ends the session server-side and clears the cookie', async () => {
    const c = new AccountClient(srv.base)
    expect((await c.login('member@example.com', PASSWORD)).status).toBe(200)
    const stolen = c.cookie
    const out = await c.call('POST', '/v1/account/logout')
    expect(out.status).toBe(204)
    expect(out.cookies.find((x) => x.startsWith('tw_session='))).toMatch(
      /^tw_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/
    )
    expect(c.cookie).toBeUndefined()
    c.cookie = stolen // a copy of the cookie kept by an attacker
    expect((await c.call('GET', '/v1/account')).status).toBe(401)
    expect((await c.call('GET', '/v1/usage')).status).toBe(401)
  })

  it('keeps the admin-token API working beside the accounts', async () => {
    const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }
    const made = await fetch(`${srv.base}/v1/admin/keys`, {
      method: 'POST',
      headers: auth,
      body: '{"plan":"trader","name":"ci"}'
    })
    expect(made.status).toBe(201)
    const { key, id } = (await made.json()) as { key: string; id: string }
    expect((await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': key } })).status).toBe(200)
    const list = (await (await fetch(`${srv.base}/v1/admin/keys`, { headers: auth })).json()) as {
      keys: { id: string }[]
    }
    expect(list.keys.map((k) => k.id)).toContain(id)
    // an admin key belongs to no account: no account lists it
    const ownerKeys = (await owner.call('GET', '/v1/account/keys')).body.keys.map((k: { id: string }) => k.id)
    expect(ownerKeys).not.toContain(id)
  })

  it('counts accounts and sessions in /v1/health', async () => {
    const h = (await (await fetch(`${srv.base}/v1/health`)).json()) as { accounts: Record<string, number> }
    expect(h.accounts['accounts']).toBeGreaterThanOrEqual(2)
    expect(h.accounts['sessions']).toBeGreaterThan(0)
    expect(h.accounts['hashes']).toBeGreaterThan(0)
  })

  it('counts 429 refusals per day, shows past days from the store, oldest first', async () => {
    const invite = await owner.call('POST', '/v1/account/invites')
    const free = new AccountClient(srv.base)
    expect((await free.signup('free@example.com', PASSWORD, invite.body.token)).status).toBe(201)
    const dash = (await free.call('GET', '/v1/account/keys')).body.keys[0]
    // yesterday's figures as a flush of another day left them
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
    const store = srv.running.ctx.store
    await store.command(`INSERT INTO api_usage (key_id, day, calls) VALUES ({k:String}, {d:Date}, 7)`, {
      k: dash.id,
      d: yesterday
    })
    await store.command(`INSERT INTO api_throttled (key_id, day, throttled) VALUES ({k:String}, {d:Date}, 4)`, {
      k: dash.id,
      d: yesterday
    })
    const statuses: number[] = []
    for (let i = 0; i < 202; i++)
      statuses.push((await free.call('GET', '/v1/confirm?symbol=BTC&direction=long')).status)
    expect(statuses.filter((s) => s === 429)).toHaveLength(2)
    const usage = (await free.call('GET', '/v1/account/usage')).body.keys[0]
    expect(usage).toMatchObject({ id: dash.id, quota_per_day: 200, used_today: 200 })
    expect(usage.days.at(-1)).toMatchObject({ calls: 200, throttled: 2 })
    expect(usage.days.at(-2)).toEqual({ day: yesterday, calls: 7, throttled: 4 })
    expect(usage.days.slice(0, -2).every((d: { calls: number }) => d.calls === 0)).toBe(true)
  })

  it('makes a new dashboard key at the next login when the admin API revoked it', async () => {
    const invite = await owner.call('POST', '/v1/account/invites')
    const c = new AccountClient(srv.base)
    expect((await c.signup('revoked@example.com', PASSWORD, invite.body.token)).status).toBe(201)
    const dash = (await c.call('GET', '/v1/account/keys')).body.keys[0]
    const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
    expect((await fetch(`${srv.base}/v1/admin/keys/${dash.id}`, { method: 'DELETE', headers: auth })).status).toBe(200)
    expect((await c.call('GET', '/v1/usage')).status).toBe(401)
    expect((await c.call('GET', '/v1/account')).status).toBe(200)
    expect((await c.login('revoked@example.com', PASSWORD)).status).toBe(200)
    const again = await c.call('GET', '/v1/usage')
    expect(again.status).toBe(200)
    expect(again.body.key_id).not.toBe(dash.id)
    expect(again.body.name).toBe('dashboard')
  })

  it('keeps accounts, keys and sessions across a restart of the service', async () => {
    // the restart reopens the same data directory: same store
    await srv.running.stop()
    const { loadConfig } = await import('../../server/config.js')
    const { start } = await import('../../server/start.js')
    const { silentLogger } = await import('../../engine/log.js')
    const again = await start(
      loadConfig({
        PORT: '0',
        DATA_DIR: srv.dataDir,
        SOURCES: 'none',
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        TRUSTED_PROXY_HOPS: '1',
        CHDB_POOL_SIZE: '2'
      }),
      silentLogger()
    )
    try {
      await again.ready
      const base = `http://127.0.0.1:${again.port}`
      const c = Object.assign(new AccountClient(base), { cookie: owner.cookie, csrf: owner.csrf })
      const me = await c.call('GET', '/v1/account')
      expect(me.status).toBe(200)
      expect(me.body.account.role).toBe('owner')
      const keys = await c.call('GET', '/v1/account/keys')
      expect(keys.body.keys.length).toBeGreaterThanOrEqual(2)
      const m = new AccountClient(base)
      expect((await m.login('member@example.com', PASSWORD)).body.account.plan).toBe('pro')
      // today's calls, 429s and last uses were written at the stop and read back at the start
      const f = new AccountClient(base)
      expect((await f.login('free@example.com', PASSWORD)).status).toBe(200)
      const usage = (await f.call('GET', '/v1/account/usage')).body.keys[0]
      expect(usage).toMatchObject({ used_today: 200 })
      expect(usage.days.at(-1)).toMatchObject({ calls: 200, throttled: 2 })
      expect((await f.call('GET', '/v1/account/keys')).body.keys[0].last_used_at).not.toBeNull()
    } finally {
      await again.stop()
    }
    // the first server is stopped already: only its data directory is left to remove
    srv.stop = async () => fs.rmSync(srv.dataDir, { recursive: true, force: true })
  })
})

describe('accounts: SIGNUP=open', () => {
  it('accepts later sign-ups without an invite, on the free plan', async () => {
    const srv = await startTestServer({ SIGNUP: 'open' })
    try {
      const first = await new AccountClient(srv.base).signup('a@example.com', PASSWORD)
      expect(first.body.account).toMatchObject({ role: 'owner', plan: 'enterprise' })
      const second = await new AccountClient(srv.base).signup('b@example.com', PASSWORD)
      expect(second.status).toBe(201)
      expect(second.body.account).toMatchObject({ role: 'member', plan: 'free' })
    } finally {
      await srv.stop()
    }
  })
})
