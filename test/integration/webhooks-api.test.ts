/**
 * The webhook registration API over the real app and a real chDB store (docs/webhooks.md): the spec's
 * 201 answer and 400s naming the field, the plan gate, keys seeing only their own webhooks, states
 * (active, disabled, removed), the secret never shown, the signing key sealed at rest with WEBHOOK_KEY or
 * a generated 0600 key file, and registrations surviving a restart.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { webhookApp, type WebhookApp } from '../helpers/webhook-app.js'

const SECRET = 'a-long-enough-secret-0001'
const KEY_HEX = crypto.createHash('sha256').update(SECRET).digest('hex')
// a public address (TEST-NET would be refused as reserved): the stub resolves the name, nothing connects
const HOSTS = { 'hooks.example.com': ['93.184.215.14'], 'rebind.example.com': ['127.0.0.1'] }
const URL_OK = 'https://hooks.example.com/tidewatch'

describe('webhook registration API', () => {
  let w: WebhookApp
  let pro: string
  let ent: string

  beforeAll(async () => {
    w = await webhookApp({
      hosts: HOSTS,
      known: { has: (b) => ['BTC', 'ETH', 'SOL'].includes(b), values: () => ['BTC', 'ETH', 'SOL'] }
    })
    pro = (await w.key('pro')).key
    ent = (await w.key('enterprise')).key
  })
  afterAll(async () => w.close(false))

  const create = (key: string, body: Record<string, unknown>) => w.call('POST', '/v1/webhooks', { key, body })
  const valid = { url: URL_OK, events: ['HIGH', 'VETO'], symbols: ['BTC'], secret: SECRET }

  it('registers: 201 with webhook_id, url, events, symbols and a message naming the test operation', async () => {
    const res = await create(pro, valid)
    expect(res.status).toBe(201)
    expect(Number.isInteger(res.body.webhook_id)).toBe(true)
    expect(res.body).toMatchObject({ url: URL_OK, events: ['HIGH', 'VETO'], symbols: ['BTC'] })
    expect(res.body.message).toContain('POST /v1/webhooks/test')
    expect(Object.keys(res.body).sort()).toEqual(['events', 'message', 'symbols', 'url', 'webhook_id'])
  })

  it('reads symbols as bases and accepts the wildcards', async () => {
    const res = await create(pro, { ...valid, symbols: ['BINANCE:BTCUSDT.P', 'eth/usdt', 'BTC'] })
    expect(res.status).toBe(201)
    expect(res.body.symbols).toEqual(['BTC', 'ETH'])
    const all = await create(pro, { ...valid, events: ['*'], symbols: ['*'] })
    expect(all.status).toBe(201)
    expect(all.body).toMatchObject({ events: ['*'], symbols: ['*'] })
  })

  it.each([
    [{ url: 'http://hooks.example.com/x' }, 'url', /https:\/\//],
    [{ url: 'https://user:pw@hooks.example.com/x' }, 'url', /user name or password/],
    [{ url: 'https://nowhere.invalid/x' }, 'url', /does not resolve/],
    [{ url: 'https://rebind.example.com/x' }, 'url', /resolves to 127\.0\.0\.1 is a loopback/],
    [{ secret: 'short-secret-15' }, 'secret', /16/],
    [{ events: ['LOW'] }, 'events[0]', /HIGH, MEDIUM, VETO, SIGNAL/],
    [{ events: [] }, 'events', /at least 1/],
    [{ events: ['*', 'HIGH'] }, 'events', /stands alone/],
    [{ symbols: ['*', 'BTC'] }, 'symbols', /stands alone/],
    [{ symbols: ['ETH/BTC'] }, 'symbols[0]', /USDT/],
    [{ symbols: ['BTCX'] }, 'symbols', /did you mean BTC/]
  ])('400 naming the field: %j', async (change, param, message) => {
    const res = await create(pro, { ...valid, ...change })
    expect(res.status).toBe(400)
    expect(res.body.error.param).toBe(param)
    expect(res.body.error.message).toMatch(message)
  })

  it('a missing field or an unknown one is a 400 naming it', async () => {
    const { secret: _omit, ...noSecret } = valid
    const res = await create(pro, noSecret)
    expect(res.status).toBe(400)
    expect(res.body.error.param).toBe('secret')
    const extra = await create(pro, { ...valid, retries: 5 })
    expect(extra.status).toBe(400)
    expect(extra.body.error.param).toBe('retries')
  })

  it('free and trader keys get 403 naming the pro plan; no key 401', async () => {
    for (const plan of ['free', 'trader'] as const) {
      const res = await create((await w.key(plan)).key, valid)
      expect(res.status).toBe(403)
      expect(res.body.error.message).toMatch(/pro/)
    }
    expect((await w.call('POST', '/v1/webhooks', { body: valid })).status).toBe(401)
  })

  it('a key sees only its own webhooks: 404 for another key’s id on every operation', async () => {
    const mine = (await create(ent, valid)).body.webhook_id as number
    const list = await w.call('GET', '/v1/webhooks', { key: pro })
    expect(list.body.webhooks.map((x: { webhook_id: number }) => x.webhook_id)).not.toContain(mine)
    for (const [method, p, body] of [
      ['GET', `/v1/webhooks/${mine}`, undefined],
      ['PATCH', `/v1/webhooks/${mine}`, { state: 'disabled' }],
      ['DELETE', `/v1/webhooks/${mine}`, undefined],
      ['POST', `/v1/webhooks/${mine}/enable`, undefined],
      ['GET', `/v1/webhooks/${mine}/deliveries`, undefined],
      ['POST', '/v1/webhooks/test', { webhook_id: mine }]
    ] as const) {
      const res = await w.call(method, p, { key: pro, ...(body ? { body } : {}) })
      expect(res.status, `${method} ${p}`).toBe(404)
    }
    expect((await w.call('GET', `/v1/webhooks/${mine}`, { key: ent })).status).toBe(200)
  })

  it('states: active -> disabled (PATCH) -> active (enable) -> removed (DELETE, then 404)', async () => {
    const id = (await create(pro, valid)).body.webhook_id as number
    const off = await w.call('PATCH', `/v1/webhooks/${id}`, { key: pro, body: { state: 'disabled' } })
    expect(off.body).toMatchObject({ state: 'disabled', state_reason: 'disabled through the API' })
    const test = await w.call('POST', '/v1/webhooks/test', { key: pro, body: { webhook_id: id } })
    expect(test.status).toBe(400)
    expect(test.body.error.message).toMatch(/disabled.*enable/)
    const on = await w.call('POST', `/v1/webhooks/${id}/enable`, { key: pro })
    expect(on.body).toMatchObject({ state: 'active', state_reason: null })
    const changed = await w.call('PATCH', `/v1/webhooks/${id}`, {
      key: pro,
      body: { events: ['SIGNAL'], symbols: ['sol'], secret: 'another-secret-0000002' }
    })
    expect(changed.body).toMatchObject({ events: ['SIGNAL'], symbols: ['SOL'], state: 'active' })
    expect((await w.call('PATCH', `/v1/webhooks/${id}`, { key: pro, body: {} })).status).toBe(400)
    const del = await w.call('DELETE', `/v1/webhooks/${id}`, { key: pro })
    expect(del.body).toEqual({ webhook_id: id, state: 'removed' })
    expect((await w.call('GET', `/v1/webhooks/${id}`, { key: pro })).status).toBe(404)
  })

  it('never shows the secret or the signing key, and stores the key only sealed', async () => {
    const id = (await create(pro, valid)).body.webhook_id as number
    const texts = [
      JSON.stringify((await w.call('GET', '/v1/webhooks', { key: pro })).body),
      JSON.stringify((await w.call('GET', `/v1/webhooks/${id}`, { key: pro })).body)
    ]
    for (const t of texts) {
      expect(t).not.toContain(SECRET)
      expect(t).not.toContain(KEY_HEX)
    }
    const rows = await w.store.query<Record<string, unknown>>('SELECT * FROM webhooks FINAL WHERE id = {id:UInt64}', {
      id
    })
    const stored = JSON.stringify(rows)
    expect(stored).not.toContain(SECRET)
    expect(stored).not.toContain(KEY_HEX)
    expect(String(rows[0]!['signing_key_sealed'])).toMatch(/^v1\./)
    const keyFile = path.join(w.dataDir, 'webhook.key')
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
  })
})

describe('webhook registrations across restarts', () => {
  it('survive a restart with the same key; a different WEBHOOK_KEY stops the start naming it', async () => {
    const env = { WEBHOOK_KEY: crypto.randomBytes(32).toString('hex') }
    const first = await webhookApp({ env, hosts: { 'h.example.com': ['93.184.215.14'] } })
    const pro = await first.key('pro')
    const created = await first.call('POST', '/v1/webhooks', {
      key: pro.key,
      body: { url: 'https://h.example.com/a', events: ['*'], symbols: ['*'], secret: SECRET }
    })
    expect(created.status).toBe(201)
    await first.close(false)
    expect(fs.existsSync(path.join(first.dataDir, 'webhook.key'))).toBe(false)

    const again = await webhookApp({ env, dataDir: first.dataDir })
    const w = again.service.registry.get(created.body.webhook_id)
    expect(w).toMatchObject({ url: 'https://h.example.com/a', keyId: pro.id, state: 'active', signingKey: KEY_HEX })
    await again.close(false)

    await expect(
      webhookApp({ env: { WEBHOOK_KEY: crypto.randomBytes(32).toString('hex') }, dataDir: first.dataDir })
    ).rejects.toThrow(/WEBHOOK_KEY/)
    fs.rmSync(first.dataDir, { recursive: true, force: true })
  })
})
