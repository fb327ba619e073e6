/**
 * Node intelligence on a server with no chain node (server/modules/node-intel-open.ts): its routes are
 * served without the service's code and answer as the service does for a chain without a node: 400 for a
 * bad chain or token (a wrong EIP-55 checksum too), 503 chain_not_configured naming the variable, health
 * `not_configured` for both chains, 404 for a token with no verdict history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
let key: string

const TOKEN = '0x' + 'ab'.repeat(20)

beforeAll(async () => {
  srv = await startTestServer({})
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan: 'pro', name: 'node-off' })
  })
  key = (await jsonBody(res)).key
})
afterAll(async () => {
  await srv?.stop()
})

const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${srv.base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: await jsonBody(res) }
}

describe('node intelligence without a chain node', () => {
  it('answers 503 chain_not_configured naming the variable on every chain route', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/v1/node/bsc/honeypot/${TOKEN}`],
      ['GET', `/v1/node/avax/token-risk/${TOKEN}`],
      ['GET', '/v1/node/bsc/new-pairs'],
      ['POST', '/v1/node/avax/watch', { token: TOKEN }],
      ['GET', '/v1/node/bsc/watch'],
      ['DELETE', `/v1/node/bsc/watch/${TOKEN}`]
    ]
    for (const [method, path, body] of routes) {
      const r = await call(method, path, body)
      expect(r.status, `${method} ${path}`).toBe(503)
      expect(r.body.error.code).toBe('chain_not_configured')
      expect(r.body.error.message).toMatch(path.includes('/bsc/') ? /BSC_RPC_URL/ : /AVAX_RPC_URL/)
    }
  })

  it('checks the parameters first (400)', async () => {
    const badChain = await call('GET', `/v1/node/eth/honeypot/${TOKEN}`)
    expect(badChain.status).toBe(400)
    expect(badChain.body.error).toMatchObject({ code: 'invalid_parameter', param: 'chain' })
    // a mixed-case address with a wrong checksum
    const badSum = await call('GET', '/v1/node/bsc/honeypot/0xAbababababababababababababababababababab')
    expect(badSum.status).toBe(400)
    expect(badSum.body.error.message).toMatch(/EIP-55 checksum/)
  })

  it('reports both chains not configured, and no verdict history', async () => {
    const health = await call('GET', '/v1/node/health')
    expect(health.status).toBe(200)
    expect(health.body.chains.map((c: { status: string }) => c.status)).toEqual(['not_configured', 'not_configured'])
    const history = await call('GET', `/v1/node/bsc/token-history/${TOKEN}`)
    expect(history.status).toBe(404)
    expect(history.body.error.code).toBe('not_found')
  })
})
