/**
 * @module
 * Route table lookup. An unknown path is 404; a known path with another method is 405 with `Allow`.
 * Matching is by segments; `:name` segments capture one percent-decoded segment. A concrete path (no
 * `:name` segment) is matched before templated ones, as OpenAPI matches paths: `/v1/webhooks/test` is
 * never `/v1/webhooks/:id`, and its `Allow` lists only the methods it serves.
 */
import { ApiError } from '../engine/errors.js'
import type { Route } from './http/types.js'

interface Compiled {
  readonly route: Route
  readonly segments: readonly string[]
}

export interface Match {
  readonly route: Route
  readonly params: Readonly<Record<string, string>>
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})

export class Router {
  private readonly compiled: Compiled[]
  /** routes without path parameters, by method then path: the hot endpoints resolve with two lookups */
  private readonly exact = new Map<string, Map<string, Match>>()
  /** methods of each concrete path */
  private readonly concrete = new Map<string, string[]>()

  constructor(readonly routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/').slice(1) }))
    for (const route of routes) {
      if (route.path.includes(':')) continue
      let byPath = this.exact.get(route.method)
      if (!byPath) this.exact.set(route.method, (byPath = new Map()))
      byPath.set(route.path, { route, params: NO_PARAMS })
      const methods = this.concrete.get(route.path)
      if (methods) methods.push(route.method)
      else this.concrete.set(route.path, [route.method])
    }
  }

  private static params(pattern: readonly string[], parts: readonly string[]): Record<string, string> | null {
    if (pattern.length !== parts.length) return null
    const params: Record<string, string> = {}
    for (let i = 0; i < pattern.length; i++) {
      const p = pattern[i]!
      const part = parts[i]!
      if (p.startsWith(':')) {
        if (part === '') return null
        try {
          params[p.slice(1)] = decodeURIComponent(part)
        } catch {
          return null
        }
      } else if (p !== part) return null
    }
    return params
  }

  /** The route for method and path, or an ApiError (404 or 405). */
  match(method: string, path: string): Match | ApiError {
    const hit = this.exact.get(method === 'HEAD' ? 'GET' : method)?.get(path)
    if (hit) return hit
    const served = this.concrete.get(path)
    if (served) return notAllowed(method, path, served)
    const parts = path.split('/').slice(1)
    const allowed: string[] = []
    for (const c of this.compiled) {
      const params = Router.params(c.segments, parts)
      if (!params) continue
      if (c.route.method === method || (method === 'HEAD' && c.route.method === 'GET'))
        return { route: c.route, params }
      allowed.push(c.route.method)
    }
    if (allowed.length > 0) return notAllowed(method, path, allowed)
    return new ApiError('not_found', `no endpoint at ${path}`)
  }
}

function notAllowed(method: string, path: string, allowed: readonly string[]): ApiError {
  return new ApiError('method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(', ')}`, {
    headers: { allow: allowed.join(', ') }
  })
}
