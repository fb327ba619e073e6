/**
 * The uWS adapter (server/http/uws-server.ts) on a real socket, where its fast paths differ from the plain
 * path: HEAD answers GET's headers and length with no body (plain bodies, small and large), the validated
 * query cache (server/app.ts `validQuery`, keyed by the raw query string) never mixes two queries nor keeps
 * a refusal, and a body past the streaming threshold (written with tryEnd) arrives whole.
 */
import { describe, expect, it } from 'vitest'
import { sharedServer } from '../helpers/shared-server.js'

const srv = sharedServer()

async function get(path: string): Promise<{ status: number; text: string; length: string | null }> {
  const res = await fetch(`${srv.base}${path}`, { headers: { 'accept-encoding': 'identity' } })
  return { status: res.status, text: await res.text(), length: res.headers.get('content-length') }
}

async function head(path: string): Promise<{ status: number; text: string; length: string | null }> {
  const res = await fetch(`${srv.base}${path}`, { method: 'HEAD', headers: { 'accept-encoding': 'identity' } })
  return { status: res.status, text: await res.text(), length: res.headers.get('content-length') }
}

describe('uWS adapter on a real socket', () => {
  it('HEAD answers the status and Content-Length of GET, without a body', async () => {
    // plain bodies that stay put while other files write to the shared server (health counts their rows)
    for (const path of ['/v1/options/chain?currency=BTC', '/v1/options/chain?currency=XRP']) {
      const g = await get(path)
      const h = await head(path)
      expect(h.status, path).toBe(g.status)
      expect(h.text, path).toBe('')
      expect(Number(h.length), path).toBe(Buffer.byteLength(g.text))
    }
  })

  it('the validated query cache keys by the whole raw query: two queries never share an answer, a refusal is not kept', async () => {
    const btc = await get('/v1/options/chain?currency=BTC')
    const eth = await get('/v1/options/chain?currency=ETH')
    expect(btc.status).toBe(eth.status)
    expect(JSON.parse(btc.text)).toMatchObject({ currency: 'BTC' })
    expect(JSON.parse(eth.text)).toMatchObject({ currency: 'ETH' })
    // the same raw query again (a cache hit) answers the same; the other one still its own
    expect(await get('/v1/options/chain?currency=BTC')).toEqual(btc)
    expect(await get('/v1/options/chain?currency=ETH')).toEqual(eth)
    const bad = await get('/v1/options/chain?currency=XRP')
    expect(bad.status).toBe(400)
    expect((JSON.parse(bad.text) as { error: { message: string } }).error.message).toMatch(/currency/)
    expect((await get('/v1/options/chain?currency=XRP')).status).toBe(400)
    expect(await get('/v1/options/chain?currency=BTC')).toEqual(btc)
  })

  it('a body past the streaming threshold (256 KiB, written with tryEnd) arrives whole; HEAD gives its length', async () => {
    // the OpenAPI document is one plain body of several hundred KiB
    const g = await get('/v1/openapi.json')
    expect(g.status).toBe(200)
    expect(Buffer.byteLength(g.text)).toBeGreaterThan(256 * 1024)
    expect(Number(g.length)).toBe(Buffer.byteLength(g.text))
    expect(() => JSON.parse(g.text) as unknown).not.toThrow()
    const h = await head('/v1/openapi.json')
    expect(h.text).toBe('')
    expect(Number(h.length)).toBe(Buffer.byteLength(g.text))
  })
})
