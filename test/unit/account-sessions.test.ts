/**
 * Sessions, login throttling, passwords, cookies and origins in process with a controlled clock (docs/accounts.md):
 * idle and absolute session expiry, only digests stored, per-account session cap, throttle windows and
 * their Retry-After, scrypt hashes with their parameters, the Secure rule and the same-origin rule.
 */
import crypto from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { FakeStore } from '../helpers/fake-store.js'
import {
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  SESSIONS_PER_ACCOUNT,
  SessionStore,
  csrfMatches,
  csrfTokenOf,
  sessionDigest
} from '../../engine/accounts/sessions.js'
import { ACCOUNT_FAILURES, IP_FAILURES, LoginThrottle, WINDOW_MS } from '../../engine/accounts/login-throttle.js'
import { hashPassword, passwordProblem, verifyPassword } from '../../engine/accounts/password.js'
import { cameOverTls, readCookie, sessionCookie } from '../../server/accounts/cookies.js'
import { sameOrigin } from '../../server/accounts/origin.js'

const HOUR = 3_600_000

function clock(start = Date.UTC(2026, 0, 1)): { now: () => number; advance: (ms: number) => void } {
  let t = start
  return { now: () => t, advance: (ms) => (t += ms) }
}

describe('sessions', () => {
  it('stores only the SHA-256 of the id and resolves the id in clear', async () => {
    const store = new FakeStore()
    const sessions = new SessionStore(store)
    const { rawId } = await sessions.create('acc1')
    expect(rawId).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const written = JSON.stringify(store.calls)
    expect(written).not.toContain(rawId)
    expect(written).toContain(sessionDigest(rawId))
    expect(sessions.resolve(rawId)?.accountId).toBe('acc1')
    expect(sessions.resolve(sessionDigest(rawId))).toBeNull()
    expect(sessions.resolve('A'.repeat(43))).toBeNull()
  })

  it('ends a session idle for 7 days, and any session 30 days after login however active', async () => {
    const c = clock()
    const sessions = new SessionStore(new FakeStore(), c.now)
    const idle = (await sessions.create('a')).rawId
    const busy = (await sessions.create('a')).rawId
    c.advance(SESSION_IDLE_MS - HOUR)
    expect(sessions.resolve(busy)).not.toBeNull()
    c.advance(2 * HOUR)
    expect(sessions.resolve(idle)).toBeNull() // 7 days and an hour without a request
    // used every 6 days, `busy` lives until the absolute limit
    while (c.now() - Date.UTC(2026, 0, 1) < SESSION_MAX_MS - 6 * 86_400_000) {
      c.advance(6 * 86_400_000)
      expect(sessions.resolve(busy)).not.toBeNull()
    }
    c.advance(6 * 86_400_000)
    expect(sessions.resolve(busy)).toBeNull()
    expect(sessions.counters.expired).toBe(2)
  })

  it('writes the last use at most hourly', async () => {
    const c = clock()
    const store = new FakeStore()
    const sessions = new SessionStore(store, c.now)
    const { rawId } = await sessions.create('a')
    const writes = () => store.calls.filter((x) => x.op === 'command').length
    for (let i = 0; i < 10; i++) {
      c.advance(60_000)
      sessions.resolve(rawId)
    }
    expect(writes()).toBe(1)
    c.advance(HOUR)
    sessions.resolve(rawId)
    expect(writes()).toBe(2)
  })

  it('keeps at most SESSIONS_PER_ACCOUNT per account, ending the least recently used', async () => {
    const c = clock()
    const sessions = new SessionStore(new FakeStore(), c.now)
    const ids: string[] = []
    for (let i = 0; i < SESSIONS_PER_ACCOUNT + 2; i++) {
      ids.push((await sessions.create('a')).rawId)
      c.advance(1000)
    }
    await sessions.create('b')
    expect(sessions.size).toBe(SESSIONS_PER_ACCOUNT + 1)
    expect(sessions.resolve(ids[0]!)).toBeNull()
    expect(sessions.resolve(ids[1]!)).toBeNull()
    expect(sessions.resolve(ids[2]!)).not.toBeNull()
  })

  it('ends every other session of the account and keeps the given one', async () => {
    const sessions = new SessionStore(new FakeStore())
    const keep = await sessions.create('a')
    const other = await sessions.create('a')
    const stranger = await sessions.create('b')
    expect(await sessions.endOthers('a', keep.session.idSha256)).toBe(1)
    expect(sessions.resolve(keep.rawId)).not.toBeNull()
    expect(sessions.resolve(other.rawId)).toBeNull()
    expect(sessions.resolve(stranger.rawId)).not.toBeNull()
  })

  it('derives a CSRF token per session and compares it exactly', () => {
    const a = crypto.randomBytes(32).toString('base64url')
    const b = crypto.randomBytes(32).toString('base64url')
    expect(csrfTokenOf(a)).not.toBe(csrfTokenOf(b))
    expect(csrfMatches(a, csrfTokenOf(a))).toBe(true)
    expect(csrfMatches(a, csrfTokenOf(b))).toBe(false)
    expect(csrfMatches(a, undefined)).toBe(false)
    expect(csrfMatches(a, '')).toBe(false)
  })
})

describe('login throttle', () => {
  it('refuses an account after 5 failures until the window closes, with the seconds left', () => {
    const c = clock()
    const t = new LoginThrottle(c.now)
    for (let i = 0; i < ACCOUNT_FAILURES; i++) {
      expect(t.check('a@x.io', `10.0.0.${i}`)).toBe(0)
      t.failed('a@x.io', `10.0.0.${i}`)
    }
    expect(t.check('a@x.io', '10.9.9.9')).toBe(WINDOW_MS / 1000)
    c.advance(WINDOW_MS - 30_000)
    expect(t.check('a@x.io', '10.9.9.9')).toBe(30)
    c.advance(30_000)
    expect(t.check('a@x.io', '10.9.9.9')).toBe(0)
    expect(t.counters.login_throttled).toBe(2)
  })

  it('refuses an IP after 50 failures across emails; unknown emails count only per IP', () => {
    const t = new LoginThrottle(clock().now)
    for (let i = 0; i < IP_FAILURES; i++) {
      expect(t.check(null, '10.0.0.1')).toBe(0)
      t.failed(null, '10.0.0.1')
    }
    expect(t.check(null, '10.0.0.1')).toBeGreaterThan(0)
    expect(t.check('a@x.io', '10.0.0.1')).toBeGreaterThan(0)
    expect(t.check('a@x.io', '10.0.0.2')).toBe(0)
  })

  it('clears an account after a successful login', () => {
    const t = new LoginThrottle(clock().now)
    for (let i = 0; i < ACCOUNT_FAILURES - 1; i++) t.failed('a@x.io', '10.0.0.1')
    t.succeeded('a@x.io')
    t.failed('a@x.io', '10.0.0.1')
    expect(t.check('a@x.io', '10.0.0.3')).toBe(0)
  })
})

describe('passwords', () => {
  it('hashes with scrypt N=2^15 r=8 p=1, a 16-byte salt and a 64-byte key, and verifies', async () => {
    const hash = await hashPassword('correct horse battery')
    const [kind, n, r, p, salt, key] = hash.split('$')
    expect([kind, n, r, p]).toEqual(['scrypt', '32768', '8', '1'])
    expect(Buffer.from(salt!, 'base64url')).toHaveLength(16)
    expect(Buffer.from(key!, 'base64url')).toHaveLength(64)
    expect(await verifyPassword('correct horse battery', hash)).toBe(true)
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false)
    expect(await verifyPassword('correct horse battery', null)).toBe(false)
    expect(await hashPassword('correct horse battery')).not.toBe(hash) // salted
  })

  it('states the password rules', () => {
    expect(passwordProblem('123456789')).toMatch(/at least 10/)
    expect(passwordProblem('😀'.repeat(10))).toBeNull() // code points, not UTF-16 units
    expect(passwordProblem('x'.repeat(201))).toMatch(/at most 200/)
  })
})

describe('cookies and origins', () => {
  it('reads the session cookie among others', () => {
    expect(readCookie('a=1; tw_session=abc; b=2', 'tw_session')).toBe('abc')
    expect(readCookie('xtw_session=abc', 'tw_session')).toBeUndefined()
    expect(readCookie(undefined, 'tw_session')).toBeUndefined()
  })

  it('is Secure only when a trusted proxy says the client came over https', () => {
    expect(cameOverTls({ 'x-forwarded-proto': 'https' }, 0)).toBe(false)
    expect(cameOverTls({ 'x-forwarded-proto': 'https' }, 1)).toBe(true)
    expect(cameOverTls({ 'x-forwarded-proto': 'https, http' }, 1)).toBe(false)
    expect(cameOverTls({ 'x-forwarded-proto': 'https, http' }, 2)).toBe(true)
    expect(cameOverTls({}, 1)).toBe(false)
    expect(sessionCookie('id', true)).toBe('tw_session=id; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax; Secure')
    expect(sessionCookie('id', false)).not.toContain('Secure')
  })

  it('accepts no Origin or this server, refuses other origins and null', () => {
    const host = { host: 'dash.example:8080' }
    expect(sameOrigin(host, 0)).toBe(true)
    expect(sameOrigin({ ...host, origin: 'http://dash.example:8080' }, 0)).toBe(true)
    expect(sameOrigin({ ...host, origin: 'http://dash.example:8081' }, 0)).toBe(false)
    expect(sameOrigin({ ...host, origin: 'http://evil.example' }, 0)).toBe(false)
    expect(sameOrigin({ ...host, origin: 'null' }, 0)).toBe(false)
    const proxied = { host: 'tidewatch:8080', 'x-forwarded-host': 'dash.example', origin: 'https://dash.example' }
    expect(sameOrigin(proxied, 1)).toBe(true)
    expect(sameOrigin(proxied, 0)).toBe(false) // the forwarded host is not trusted without a proxy
  })
})

describe('SIGNUP', () => {
  it('is invite by default, open on request, and names the variable when wrong', async () => {
    const { loadConfig } = await import('../../server/config.js')
    expect(loadConfig({}).signup).toBe('invite')
    expect(loadConfig({ SIGNUP: 'open' }).signup).toBe('open')
    expect(() => loadConfig({ SIGNUP: 'public' })).toThrow(/SIGNUP must be one of invite, open/)
  })
})
