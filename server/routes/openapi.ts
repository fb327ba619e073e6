/**
 * @module
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of every `/v1` route, built once from the route table.
 */
import { buildOpenApi } from '../openapi.js'
import type { Route } from '../http/types.js'

export function openapiRoutes(routes: readonly Route[], version: string): Route[] {
  let body: string | undefined
  const self: Route = {
    method: 'GET',
    path: '/v1/openapi.json',
    access: 'none',
    summary: 'This OpenAPI 3.1 document',
    tags: ['service'],
    handler: () => {
      body ??= JSON.stringify(buildOpenApi([...routes, self], version))
      return { status: 200, headers: { 'content-type': 'application/json' }, body }
    }
  }
  return [self]
}
