import { describe, it, expect } from 'vitest'
import { App } from '../../server/app.js'
import { json, type HttpRequest } from '../../server/http/types.js'
import { silentLogger } from '../../engine/log.js'
import { ApiError } from '../../engine/errors.js'

const base = { access: 'none', summary: 'test', tags: ['test'] } as const
const app = new App(
  [
    { ...base, method: 'GET', path: '/v1/items/:id', handler: (r) => json(200, { id: r.params['id'] }) },
    { ...base, method: 'DELETE', path: '/v1/items/:id', handler: () => json(204, {}) },
    {
      ...base,
      method: 'GET',
      path: '/v1/boom',
      handler: () => {
        throw new Error('SELECT secret FROM users')
      }
    },
    {
      ...base,
      method: 'GET',
      path: '/v1/bad',
      handler: () => {
        throw new ApiError('invalid_parameter', 'hours must be 1 to 168', { param: 'hours' })
      }
    }
  ],
  silentLogger(),
  null
)

function req(method: string, path: string): HttpRequest {
  return { method, path, query: new URLSearchParams(), headers: {}, body: null, ip: '127.0.0.1' }
}

describe('App routing and the error envelope', () => {
  it('matches path parameters, percent-decoded', async () => {
    const res = await app.handle(req('GET', '/v1/items/a%20b'))
    expect(res.status).toBe(200)
    expect(JSON.parse(String(res.body))).toEqual({ id: 'a b' })
  })

  it('answers 404 for unknown paths and 405 with Allow for other methods', async () => {
    const nf = await app.handle(req('GET', '/v1/nothing'))
    expect(nf.status).toBe(404)
    expect(JSON.parse(String(nf.body))).toEqual({ error: { code: 'not_found', message: 'no endpoint at /v1/nothing' } })
    const na = await app.handle(req('POST', '/v1/items/1'))
    expect(na.status).toBe(405)
    expect(na.headers['allow']).toBe('GET, DELETE')
    expect(JSON.parse(String(na.body)).error.code).toBe('method_not_allowed')
  })

  it('puts param on client errors', async () => {
    const res = await app.handle(req('GET', '/v1/bad'))
    expect(res.status).toBe(400)
    expect(JSON.parse(String(res.body))).toEqual({
      error: { code: 'invalid_parameter', message: 'hours must be 1 to 168', param: 'hours' }
    })
  })

  it('hides internals of unexpected errors behind a correlation id', async () => {
    const res = await app.handle(req('GET', '/v1/boom'))
    expect(res.status).toBe(500)
    const body = JSON.parse(String(res.body))
    expect(body.error.code).toBe('internal')
    expect(String(res.body)).not.toContain('SELECT')
    expect(body.error.correlation_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(res.headers['x-correlation-id']).toBe(body.error.correlation_id)
  })
})
