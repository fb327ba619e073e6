/**
 * @module
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of every `/v1` route, built once from the route table.
 */
import { Type } from '@sinclair/typebox'
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
    response: Type.Object(
      { openapi: Type.Literal('3.1.0'), info: Type.Object({}), paths: Type.Object({}) },
      { description: 'an OpenAPI 3.1 document' }
    ),
    handler: () => {
      body ??= JSON.stringify(buildOpenApi([...routes, self], version))
      return { status: 200, headers: { 'content-type': 'application/json' }, body }
    }
  }
  return [self]
}
