/**
 * Security of the accounts over real HTTP against the real server (docs/accounts.md): CSRF refused without or with
 * a wrong X-CSRF-Token on state changes (account routes and POST /v1/webhooks under the session) and on
 * cross-site origins, sign-up and login only as JSON; wrong passwords throttled per account and per IP (429
 * with Retry-After, the right password refused too while throttled); one account cannot see or change
 * another's keys or webhooks (404); sessions ended by a password change (the current one kept).
 */
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/server.js'
import { AccountClient } from './account-client.js'

const PASSWORD = 'correct horse battery'
const HOOK = {
  url: 'https://127.0.0.1:9/hook',
  events: ['HIGH'],
  symbols: ['BTC'],
  secret: 'a-long-enough-secret-0001'
}

describe('accounts: security over real HTTP', () => {
  let srv: Awaited<ReturnType<typeof startTestServer>>
  let owner: AccountClient
  let member: AccountClient
  let memberId: string

  /** A new member account (signed in) made with an invite of the owner. */
  async function invited(email: string): Promise<AccountClient> {
    const invite = await owner.call('POST', '/v1/account/invites')
    const c = new AccountClient(srv.base)
    const res = await c.signup(email, PASSWORD, invite.body.token)
    expect(res.status).toBe(201)
    return c
  }

  beforeAll(async () => {
    srv = await startTestServer({ TRUSTED_PROXY_HOPS: '1', WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' })
    owner = new AccountClient(srv.base)
    expect((await owner.signup('owner@example.com', PASSWORD)).status).toBe(201)
    member = await invited('member@example.com')
    memberId = (await member.call('GET', '/v1/account')).body.account.id
    // pro: the member may use webhooks too, so a 404 below is about ownership, not the plan
    expect((await owner.call('PATCH', `/v1/account/accounts/${memberId}`, { body: { plan: 'pro' } })).status).toBe(200)
  })
  afterAll(async () => srv.stop())

  describe('CSRF', () => {
    it('refuses a state change on an account route without the token or with a wrong one', async () => {
      const none = await owner.call('POST', '/v1/account/keys', { body: { name: 'x' }, csrf: false })
      expect(none.status).toBe(403)
      expect(none.body.error.code).toBe('csrf_failed')
      const wrong = await owner.call('POST', '/v1/account/keys', { body: { name: 'x' }, csrf: 'A'.repeat(43) })
      expect(wrong.status).toBe(403)
      expect(wrong.body.error.code).toBe('csrf_failed')
      // another session's token is wrong too
      const other = await owner.call('POST', '/v1/account/keys', { body: { name: 'x' }, csrf: member.csrf! })
      expect(other.status).toBe(403)
      expect((await owner.call('GET', '/v1/account/keys')).body.keys).toHaveLength(1) // nothing was created
      const patch = await owner.call('PATCH', `/v1/account/accounts/${memberId}`, {
        body: { plan: 'free' },
        csrf: false
      })
      expect(patch.status).toBe(403)
      expect((await owner.call('POST', '/v1/account/logout', { csrf: false })).status).toBe(403)
      expect((await owner.call('GET', '/v1/account')).status).toBe(200) // still signed in
      const ok = await owner.call('POST', '/v1/account/keys', { body: { name: 'x' } })
      expect(ok.status).toBe(201)
    })

    it('refuses POST /v1/webhooks under the session without the token; an API key needs none', async () => {
      const none = await owner.call('POST', '/v1/webhooks', { body: HOOK, csrf: false })
      expect(none.status).toBe(403)
      expect(none.body.error.code).toBe('csrf_failed')
      expect((await owner.call('POST', '/v1/webhooks', { body: HOOK, csrf: 'nope' })).status).toBe(403)
      expect((await owner.call('GET', '/v1/webhooks')).body.webhooks).toHaveLength(0)
      const ok = await owner.call('POST', '/v1/webhooks', { body: HOOK })
      expect(ok.status).toBe(201)
      const key = (await owner.call('POST', '/v1/account/keys', { body: { name: 'bot' } })).body.key
      const keyed = await fetch(`${srv.base}/v1/webhooks`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', cookie: `tw_session=${owner.cookie}` },
        body: JSON.stringify(HOOK)
      })
      expect(keyed.status).toBe(201)
    })

    it('refuses a cross-site Origin under the session even with the right token', async () => {
      const cross = { origin: 'https://evil.example' }
      const res = await owner.call('POST', '/v1/account/keys', { body: { name: 'x' }, headers: cross })
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe('csrf_failed')
      expect((await owner.call('GET', '/v1/account/keys', { headers: cross })).status).toBe(403)
      expect((await owner.call('GET', '/v1/account', { headers: { origin: 'null' } })).status).toBe(403)
      const same = await owner.call('POST', '/v1/account/keys', {
        body: { name: 'y' },
        headers: { origin: srv.base }
      })
      expect(same.status).toBe(201)
    })

    it('takes sign-up and login only as JSON and from this origin', async () => {
      const c = new AccountClient(srv.base)
      const form = await c.call('POST', '/v1/account/login', {
        body: JSON.stringify({ email: 'owner@example.com', password: PASSWORD }),
        headers: { 'content-type': 'text/plain' }
      })
      expect(form.status).toBe(415)
      const cross = await c.call('POST', '/v1/account/login', {
        body: { email: 'owner@example.com', password: PASSWORD },
        headers: { origin: 'https://evil.example' }
      })
      expect(cross.status).toBe(403)
      expect(c.cookie).toBeUndefined()
    })

    it('refuses a cross-site WebSocket upgrade under the session, accepts a same-origin one', async () => {
      const ws = (origin: string) =>
        new Promise<number>((resolve) => {
          const sock = new WebSocket(`${srv.base.replace('http', 'ws')}/v1/stream`, {
            headers: { cookie: `tw_session=${owner.cookie}`, origin }
          })
          sock.on('open', () => {
            sock.close()
            resolve(101)
          })
          sock.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
          sock.on('error', () => resolve(-1))
        })
      expect(await ws('https://evil.example')).toBe(403)
      expect(await ws(srv.base)).toBe(101)
    })
  })

  describe('throttling', () => {
    it('throttles wrong passwords per account: 429 with Retry-After, the right password refused too', async () => {
      await invited('victim@example.com')
      const attacker = new AccountClient(srv.base)
      for (let i = 0; i < 5; i++) {
        const r = await attacker.login('victim@example.com', `wrong password ${i}`)
        expect(r.status).toBe(401)
        expect(r.body.error.code).toBe('invalid_credentials')
      }
      const blocked = await attacker.login('victim@example.com', 'wrong password 5')
      expect(blocked.status).toBe(429)
      const retry = Number(blocked.headers.get('retry-after'))
      expect(retry).toBeGreaterThan(0)
      expect(retry).toBeLessThanOrEqual(900)
      // from another address, with the right password: still refused (the account's window)
      const right = await new AccountClient(srv.base).login('victim@example.com', PASSWORD)
      expect(right.status).toBe(429)
      // other accounts are not affected
      expect((await new AccountClient(srv.base).login('member@example.com', PASSWORD)).status).toBe(200)
    })

    it('answers an unknown email exactly like a wrong password', async () => {
      const c = new AccountClient(srv.base)
      const unknown = await c.login('nobody@example.com', PASSWORD)
      const wrong = await c.login('member@example.com', 'not the password')
      expect(unknown.status).toBe(401)
      expect(unknown.body).toEqual(wrong.body)
    })

    it('throttles one IP guessing across emails', async () => {
      const c = new AccountClient(srv.base)
      let status = 0
      let n = 0
      for (; n < 60 && status !== 429; n++) status = (await c.login(`guess${n}@example.com`, 'wrong password')).status
      expect(status).toBe(429)
      expect(n).toBe(51) // 50 failures, then refused
      // the right password from this address is refused too; from another address it works
      expect((await c.login('member@example.com', PASSWORD)).status).toBe(429)
      expect((await new AccountClient(srv.base).login('member@example.com', PASSWORD)).status).toBe(200)
      const health = (await (await fetch(`${srv.base}/v1/health`)).json()) as { accounts: Record<string, number> }
      expect(health.accounts['login_throttled']).toBeGreaterThanOrEqual(3)
      expect(health.accounts['login_failures']).toBeGreaterThanOrEqual(55)
    })
  })

  describe('isolation', () => {
    it("one account cannot see, revoke or rotate another's keys (404)", async () => {
      const ownerKeys = (await owner.call('GET', '/v1/account/keys')).body.keys as { id: string }[]
      const memberKeys = (await member.call('GET', '/v1/account/keys')).body.keys as { id: string }[]
      expect(memberKeys.map((k) => k.id)).not.toEqual(expect.arrayContaining([ownerKeys[0]!.id]))
      for (const k of ownerKeys) {
        const del = await member.call('DELETE', `/v1/account/keys/${k.id}`)
        expect(del.status).toBe(404)
        expect((await member.call('POST', `/v1/account/keys/${k.id}/alert-secret`)).status).toBe(404)
      }
      expect(
        (await owner.call('GET', '/v1/account/keys')).body.keys.every(
          (k: { revoked_at: null }) => k.revoked_at === null
        )
      ).toBe(true)
      const usage = (await member.call('GET', '/v1/account/usage')).body.keys.map((k: { id: string }) => k.id)
      expect(usage).toEqual(memberKeys.map((k) => k.id))
    })

    it("one account cannot see or change another's webhooks (404)", async () => {
      const mine = (await owner.call('GET', '/v1/webhooks')).body.webhooks as { webhook_id: number }[]
      expect(mine.length).toBeGreaterThan(0)
      const id = mine[0]!.webhook_id
      expect((await member.call('GET', '/v1/webhooks')).body.webhooks).toHaveLength(0)
      expect((await member.call('GET', `/v1/webhooks/${id}`)).status).toBe(404)
      expect((await member.call('GET', `/v1/webhooks/${id}/deliveries`)).status).toBe(404)
      expect((await member.call('PATCH', `/v1/webhooks/${id}`, { body: { events: ['VETO'] } })).status).toBe(404)
      expect((await member.call('DELETE', `/v1/webhooks/${id}`)).status).toBe(404)
      expect((await owner.call('GET', `/v1/webhooks/${id}`)).status).toBe(200)
    })
  })

  describe('ending sessions', () => {
    it('a password change ends every other session and keeps the current one', async () => {
      const a = new AccountClient(srv.base)
      const b = new AccountClient(srv.base)
      expect((await a.login('member@example.com', PASSWORD)).status).toBe(200)
      expect((await b.login('member@example.com', PASSWORD)).status).toBe(200)
      const wrong = await a.call('POST', '/v1/account/password', {
        body: { current_password: 'not the password', new_password: 'a brand new password' }
      })
      expect(wrong.status).toBe(401)
      expect((await b.call('GET', '/v1/account')).status).toBe(200)
      const changed = await a.call('POST', '/v1/account/password', {
        body: { current_password: PASSWORD, new_password: 'a brand new password' }
      })
      expect(changed.status).toBe(200)
      expect(changed.body.ended_sessions).toBeGreaterThanOrEqual(2) // b and the member's first session
      expect((await b.call('GET', '/v1/account')).status).toBe(401)
      expect((await b.call('GET', '/v1/usage')).status).toBe(401)
      expect((await member.call('GET', '/v1/account')).status).toBe(401)
      expect((await a.call('GET', '/v1/account')).status).toBe(200)
      expect((await a.call('GET', '/v1/usage')).status).toBe(200)
      const c = new AccountClient(srv.base)
      expect((await c.login('member@example.com', PASSWORD)).status).toBe(401)
      expect((await c.login('member@example.com', 'a brand new password')).status).toBe(200)
    })

    it('ignores a forged or malformed cookie', async () => {
      const c = Object.assign(new AccountClient(srv.base), { cookie: 'A'.repeat(43) })
      expect((await c.call('GET', '/v1/account')).status).toBe(401)
      expect((await c.call('GET', '/v1/usage')).status).toBe(401)
      c.cookie = '../../etc'
      expect((await c.call('GET', '/v1/account')).status).toBe(401)
    })
  })
})

describe('accounts: concurrent sign-ups', () => {
  it('makes exactly one owner of simultaneous first sign-ups, and spends an invite once', async () => {
    const srv = await startTestServer()
    try {
      const first = await Promise.all(
        ['a@example.com', 'b@example.com', 'c@example.com'].map((e) => new AccountClient(srv.base).signup(e, PASSWORD))
      )
      expect(first.map((r) => r.status).sort()).toEqual([201, 400, 400])
      const owner = new AccountClient(srv.base)
      const winner = first.find((r) => r.status === 201)!.body.account.email as string
      expect((await owner.login(winner, PASSWORD)).body.account.role).toBe('owner')
      const token = (await owner.call('POST', '/v1/account/invites')).body.token as string
      const spent = await Promise.all(
        ['d@example.com', 'e@example.com'].map((e) => new AccountClient(srv.base).signup(e, PASSWORD, token))
      )
      expect(spent.map((r) => r.status).sort()).toEqual([201, 400])
      const list = (await owner.call('GET', '/v1/account/accounts')).body.accounts as { role: string }[]
      expect(list.map((a) => a.role)).toEqual(['owner', 'member'])
    } finally {
      await srv.stop()
    }
  })
})
