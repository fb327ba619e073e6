/**
 * @module
 * Builds the OpenAPI 3.1 document from the route table: paths, parameters (from the same TypeBox schemas
 * that validate requests), bodies, success responses and the error responses each access level can give.
 * Nothing is written by hand, so the document cannot drift from what the server does.
 */
import type { TSchema } from '@sinclair/typebox'
import { ERROR_STATUS } from '../engine/errors.js'
import type { Route } from './http/types.js'

type Json = Record<string, unknown>

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        message: { type: 'string', description: 'for a person' },
        param: { type: 'string', description: 'the parameter or field at fault' },
        line: { type: 'integer', description: 'NDJSON bodies: 1-based line at fault' },
        correlation_id: { type: 'string', description: '5xx only: also in the server log' }
      }
    }
  }
}

const RATE_HEADERS = {
  'RateLimit-Limit': {
    description: 'calls allowed in the window (per UTC day for keys, per minute for the public throttle)',
    schema: { type: 'integer' }
  },
  'RateLimit-Remaining': { description: 'calls left in the window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'seconds until the window resets', schema: { type: 'integer' } }
}

/** Plain JSON Schema of a TypeBox schema (drops TypeBox's symbol-keyed metadata). */
function plain(s: TSchema | Json): Json {
  return JSON.parse(JSON.stringify(s)) as Json
}

function err(description: string): Json {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }
}

function errorResponses(r: Route): Json {
  const out: Json = { '500': err('unexpected failure (logged with the correlation id)') }
  const pathParams = r.path.includes(':')
  if (r.query || r.body || r.rawBody || pathParams || r.access !== 'none') {
    out['400'] = err('malformed or out-of-range parameter or body; unknown query parameters are rejected')
  }
  if (pathParams) out['404'] = err('unknown resource in the path')
  if (r.maxBodyBytes) out['413'] = err(`body larger than ${r.maxBodyBytes} bytes`)
  if (r.access === 'admin') out['401'] = err('missing or wrong admin bearer token')
  if (r.access === 'key' || r.access === 'public') {
    out['401'] = err('missing (keyed endpoints), malformed, unknown or revoked API key')
    out['403'] = err("the key's plan lacks this endpoint or symbol (the message names the plan that has it)")
    out['429'] = {
      ...err(
        r.access === 'public' ? 'per-IP throttle (no key) or daily quota (key) exhausted' : 'daily quota exhausted'
      ),
      headers: { 'Retry-After': { description: 'seconds', schema: { type: 'integer' } }, ...RATE_HEADERS }
    }
  }
  return out
}

function operation(r: Route): Json {
  const parameters: Json[] = []
  for (const m of r.path.matchAll(/:(\w+)/g)) {
    parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })
  }
  const props = (r.query?.properties ?? {}) as Record<string, TSchema>
  const required = new Set((r.query?.required as string[] | undefined) ?? [])
  for (const [name, s] of Object.entries(props)) {
    const schema = plain(s)
    parameters.push({
      name,
      in: 'query',
      required: required.has(name),
      description: schema['description'],
      schema,
      ...(schema['x-format'] === 'csv' ? { style: 'form', explode: false } : {})
    })
  }
  const status = String(r.status ?? 200)
  const success: Json = {
    description: 'success',
    ...(r.response ? { content: { 'application/json': { schema: plain(r.response) } } } : {}),
    ...(r.access === 'key' || r.access === 'public' ? { headers: RATE_HEADERS } : {})
  }
  const op: Json = {
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    tags: r.tags,
    operationId: `${r.method.toLowerCase()}${r.path.replace(/[/:](\w)/g, (_, c: string) => c.toUpperCase()).replace(/\W/g, '')}`,
    parameters,
    responses: { [status]: success, ...errorResponses(r) },
    ...(r.access === 'admin' ? { security: [{ AdminToken: [] }] } : {}),
    ...(r.access === 'key' ? { security: [{ ApiKey: [] }] } : {}),
    ...(r.access === 'public' ? { security: [{}, { ApiKey: [] }] } : {}),
    ...(r.access === 'none' ? { security: [] } : {})
  }
  if (r.body) op['requestBody'] = { required: true, content: { 'application/json': { schema: plain(r.body) } } }
  if (r.rawBody) {
    op['requestBody'] = {
      required: true,
      description: r.rawBody.description,
      content: { [r.rawBody.contentType]: { schema: { type: 'string' } } }
    }
  }
  return op
}

/** OpenAPI path template of a route path: `/v1/admin/keys/:id` -> `/v1/admin/keys/{id}`. */
export function openapiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}')
}

export function buildOpenApi(routes: readonly Route[], version: string): Json {
  const paths: Record<string, Json> = {}
  for (const r of routes) {
    const p = (paths[openapiPath(r.path)] ??= {})
    p[r.method.toLowerCase()] = operation(r)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tidewatch API',
      version,
      description:
        'Crypto market intelligence. Errors use one envelope {"error":{"code","message","param"?}}. Unknown query parameters answer 400.'
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        AdminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' }
      }
    }
  }
}
