/**
 * Validated queries are cached per GET route by the raw query string (server/app.ts):
 * a repeated query gives the handler the same values without being parsed again, a handler cannot change
 * what the next request sees (cached values are frozen), a query holding a list is validated each time,
 * and a refused query answers the same 400 every time (refusals are never cached).
 */
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { App } from '../../server/app.js'
import { JSON_HEADERS, type HttpRequest, type Route, type RouteRequest } from '../../server/http/types.js'

function app(seen: RouteRequest[]): App {
  const route: Route = {
    method: 'GET',
    path: '/v1/echo',
    access: 'none',
    summary: 'echo',
    tags: ['test'],
    query: Type.Object({ n: Type.Integer({ minimum: 1, maximum: 10 }), s: Type.Optional(Type.String()) }),
    handler: (req) => {
      seen.push(req)
      return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(req.q) }
    }
  }
  return new App([route], silentLogger(), null)
}

/** A request as the uWS adapter makes it: the raw query string and a query parsed only when read. */
function request(raw: string, reads: { n: number }): HttpRequest {
  return {
    method: 'GET',
    path: '/v1/echo',
    rawQuery: raw,
    get query() {
      reads.n++
      return new URLSearchParams(raw)
    },
    headers: {},
    body: null,
    ip: '127.0.0.1'
  }
}

describe('validated query cache', () => {
  it('validates a repeated query once and hands out frozen values', () => {
    const seen: RouteRequest[] = []
    const a = app(seen)
    const reads = { n: 0 }
    const first = a.handle(request('n=3&s=x', reads))
    const second = a.handle(request('n=3&s=x', reads))
    expect(first).toMatchObject({ status: 200, body: '{"n":3,"s":"x"}' })
    expect(second).toEqual(first)
    expect(reads.n).toBe(1)
    expect(seen[1]!.q).toBe(seen[0]!.q)
    expect(Object.isFrozen(seen[0]!.q)).toBe(true)
    // another string is another entry
    expect(a.handle(request('s=x&n=3', reads))).toMatchObject({ status: 200, body: '{"s":"x","n":3}' })
    expect(reads.n).toBe(2)
  })

  it('answers a refused query with the same 400 every time', () => {
    const a = app([])
    const reads = { n: 0 }
    const once = a.handle(request('n=11', reads))
    const twice = a.handle(request('n=11', reads))
    expect(once).toMatchObject({ status: 400 })
    expect(twice).toEqual(once)
    expect(reads.n).toBe(2)
  })

  it('validates each time without a raw query string (requests not from the adapter)', () => {
    const seen: RouteRequest[] = []
    const a = app(seen)
    const req = (): HttpRequest => ({
      ...request('n=2', { n: 0 }),
      rawQuery: undefined,
      query: new URLSearchParams('n=2')
    })
    a.handle(req())
    a.handle(req())
    expect(seen[1]!.q).not.toBe(seen[0]!.q)
    expect(seen[1]!.q).toEqual({ n: 2 })
  })
})
