/**
 * The uWS adapter when the application fails outside its own error handling (server/http/uws-server.ts
 * `answerFailure`): a handler promise that rejects, with and without a request body, is answered with the
 * application's error answer, and the server (the process) keeps serving. The app here is a stand-in with
 * the four methods the adapter calls, so the failure can be provoked; the sockets are real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../server/app.js'
import { startHttpServer, type HttpServer } from '../../server/http/uws-server.js'
import type { HttpResponse } from '../../server/http/types.js'

let server: HttpServer
let base: string

/** routes: /ok answers 200; /bug rejects; POST /bug (with a body) rejects after the body is read */
const app = {
  match(method: string, path: string) {
    return { route: { path, method, maxBodyBytes: method === 'POST' ? 1024 : 0 }, params: {} }
  },
  /** access before the body: every caller admitted */
  admit(): HttpResponse | null {
    return null
  },
  handle(req: { path: string }): HttpResponse | Promise<HttpResponse> {
    if (req.path === '/ok') return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }
    return Promise.reject(new Error('a bug outside the error handling'))
  },
  errorResponse(err: unknown): HttpResponse {
    return {
      status: 500,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { code: 'internal', message: (err as Error).message } })
    }
  }
} as unknown as App

beforeAll(async () => {
  server = await startHttpServer(app, '127.0.0.1', 0)
  base = `http://127.0.0.1:${server.port}`
})
afterAll(() => server.close())

describe('uWS adapter: a rejected handler', () => {
  it('answers the error answer and the server keeps serving (GET, and POST after its body)', async () => {
    for (let i = 0; i < 2; i++) {
      const get = await fetch(`${base}/bug`)
      expect(get.status).toBe(500)
      expect(await get.json()).toMatchObject({ error: { code: 'internal' } })
      const post = await fetch(`${base}/bug`, { method: 'POST', body: '{"a":1}' })
      expect(post.status).toBe(500)
      expect(await post.json()).toMatchObject({ error: { message: /a bug/ } })
      const head = await fetch(`${base}/bug`, { method: 'HEAD' })
      expect(head.status).toBe(500)
    }
    const ok = await fetch(`${base}/ok`)
    expect(ok.status).toBe(200)
    expect(await ok.text()).toBe('ok')
  })
})
