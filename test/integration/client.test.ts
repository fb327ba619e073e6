/**
 * The typed client (clients/ts) against a real server on a loopback socket, seeded through the admin
 * ingest API: typed calls answer the documented fields, the key goes as X-API-Key, and a refused call
 * throws TidewatchError with the envelope's code and message (an answer without an envelope, from a plain
 * HTTP server standing in for a proxy, throws it with code http_error).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, TidewatchError, type Answer } from '../../clients/ts/index.js'
import { ingestRecords, startTestServer } from '../helpers/server.js'
import { createKey } from '../helpers/shared-server.js'
import { openapiSeedRows } from '../helpers/openapi-seed.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''

beforeAll(async () => {
  srv = await startTestServer({ PUBLIC_RATE_PER_MIN: '100000' })
  for (const [kind, rows] of Object.entries(openapiSeedRows(Date.now()))) await ingestRecords(srv.base, kind, rows)
  await srv.running.ctx.live.rebuild()
  key = await createKey(srv.base, 'pro')
})
afterAll(async () => {
  await srv?.stop()
})

/** The rejection of `p`, which must be a TidewatchError. */
async function refusal(p: Promise<unknown>): Promise<TidewatchError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(TidewatchError)
  return err as TidewatchError
}

describe('typed client', () => {
  it('GET /v1/confirm answers the documented confirmation', async () => {
    const tw = createClient({ baseUrl: srv.base, apiKey: key })
    const c: Answer<'/v1/confirm'> = await tw.GET('/v1/confirm', {
      params: { query: { symbol: 'BTC', direction: 'long' } }
    })
    expect(c.direction).toBe('long')
    expect(c.symbol).toMatch(/BTC/)
    expect(['CONFIRM', 'REDUCE', 'SKIP']).toContain(c.action)
    expect(['HIGH', 'MEDIUM', 'LOW', 'NONE']).toContain(c.confirmation)
    expect(Number.isFinite(c.composite)).toBe(true)
    expect(Array.isArray(c.reasons)).toBe(true)
  })

  it('GET /v1/options/chain answers the seeded chain', async () => {
    const tw = createClient({ baseUrl: srv.base })
    const chain = await tw.GET('/v1/options/chain', { params: { query: { currency: 'BTC' } } })
    expect(chain.currency).toBe('BTC')
    // the seed quotes BTC options with an underlying of 90,000 USD and open interest on calls and puts
    expect(chain.underlying_price).toBe(90_000)
    expect(chain.total_call_oi).toBeGreaterThan(0)
    expect(chain.total_put_oi).toBeGreaterThan(0)
  })

  it('throws the envelope of a refused call as TidewatchError', async () => {
    const tw = createClient({ baseUrl: srv.base, apiKey: key })
    const err = await refusal(tw.GET('/v1/confirm', { params: { query: { symbol: 'NOPECOIN', direction: 'long' } } }))
    expect(err.status).toBe(400)
    expect(err.code).toBe('unknown_symbol')
    expect(err.message).toContain('NOPECOIN')
    expect(err.detail?.code).toBe('unknown_symbol')
  })

  it('sends the key as X-API-Key: without it a key route answers 401', async () => {
    const anonymous = createClient({ baseUrl: srv.base })
    const err = await refusal(anonymous.GET('/v1/confirm', { params: { query: { symbol: 'BTC', direction: 'long' } } }))
    expect(err.status).toBe(401)
    expect(err.code).toBe('unauthorized')
  })

  it('throws http_error with the text of an answer that carries no envelope', async () => {
    const proxy = http.createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' })
      res.end('bad gateway from the proxy')
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const tw = createClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` })
      const err = await refusal(tw.GET('/v1/options/chain'))
      expect(err.status).toBe(502)
      expect(err.code).toBe('http_error')
      expect(err.message).toBe('bad gateway from the proxy')
      expect(err.detail).toBeNull()
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
    }
  })
})
