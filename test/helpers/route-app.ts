/**
 * Routes served in process, without a socket: the real `App` (routing, access control, query validation,
 * the plan's symbol check, the error envelope, the synthetic label) over the routes under test, with keys
 * held by a registry on a store of its own (a `FakeStore` that answers nothing), so the routes' store only
 * sees the routes' SQL. `request` gives the handler's answer as the adapter would send it; a streamed body
 * is left to the caller to read (`readBody`).
 */
import type { PlanName } from '../../engine/access/plans.js'
import { IpThrottle } from '../../engine/access/ip-throttle.js'
import { KeyRegistry } from '../../engine/access/key-registry.js'
import { QuotaCounter } from '../../engine/access/quota.js'
import { silentLogger, type Logger } from '../../engine/log.js'
import { AccessControl } from '../../server/access/access-control.js'
import { App } from '../../server/app.js'
import { isStreamBody, type HttpResponse, type Route } from '../../server/http/types.js'
import { FakeStore } from './fake-store.js'

export interface RouteApp {
  readonly app: App
  /** a new key of `plan` (X-API-Key value) */
  key(plan: PlanName): Promise<string>
  /** `GET /path?query` (or another method), with `key` as X-API-Key when given */
  request(target: string, opts?: { readonly key?: string; readonly method?: string }): Promise<HttpResponse>
}

export function routeApp(
  routes: readonly Route[],
  opts: { readonly synthetic?: boolean; readonly log?: Logger } = {}
): RouteApp {
  const accessStore = new FakeStore()
  const registry = new KeyRegistry(accessStore)
  const access = new AccessControl({
    registry,
    quota: new QuotaCounter(accessStore),
    throttle: new IpThrottle(1_000),
    adminToken: 'test-admin-token',
    trustedProxyHops: 0
  })
  const app = new App(routes, opts.log ?? silentLogger(), access, { synthetic: opts.synthetic === true })
  return {
    app,
    key: async (plan) => (await registry.create(plan, `test-${plan}`)).key,
    request: async (target, o = {}) => {
      const url = new URL(target, 'http://in-process')
      return app.handle({
        method: o.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: o.key === undefined ? {} : { 'x-api-key': o.key },
        body: null,
        ip: '127.0.0.1'
      })
    }
  }
}

/** The JSON body of an answer (a string or buffer body); `any` on purpose: tests assert on the shape themselves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function jsonOf(res: HttpResponse): any {
  if (isStreamBody(res.body)) throw new Error('a streamed body, not JSON')
  return JSON.parse(res.body.toString())
}

/** Every byte of a streamed body, read to its end. */
export async function readBody(res: HttpResponse): Promise<Buffer> {
  if (!isStreamBody(res.body)) return Buffer.from(res.body)
  const chunks: Buffer[] = []
  for await (const c of res.body.stream) chunks.push(Buffer.from(c))
  return Buffer.concat(chunks)
}
