/**
 * @module
 * Builds the OpenAPI 3.1 document from the route table: paths, parameters (from the same TypeBox schemas
 * that validate requests), bodies, success responses and every error response a route can give: 400 on
 * every route (unknown query parameters are refused everywhere), the access level's 401/403/429, 404 for
 * path parameters, 413 for bodies, 503 warming_up on data routes, and what handlers answer themselves
 * (server/openapi-operations.ts). The contract test drives requests from this document and checks every
 * answer against it (test/integration/openapi-contract.test.ts); `npm run lint:openapi` lints it.
 */
import type { TSchema } from '@sinclair/typebox'
import { ERROR_STATUS } from '../engine/errors.js'
import { SYNTHETIC_HEADER } from '../engine/live/synthetic-data.js'
import { isDataRoute } from './app.js'
import type { Route } from './http/types.js'
import { OPERATION_NOTES, RETRY_AFTER } from './openapi-operations.js'
import type { OperationNotes } from './operation-notes.js'

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
    schema: { type: 'integer', minimum: 0 }
  },
  'RateLimit-Remaining': { description: 'calls left in the window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'seconds until the window resets', schema: { type: 'integer', minimum: 0 } }
}

/** The label of answers of a service holding synthetic demo data (docs/synthetic.md). */
const SYNTHETIC_HEADERS = {
  [SYNTHETIC_HEADER]: {
    description: 'present (true) when the service holds synthetic demo data: the answer is not market data',
    schema: { type: 'string', const: 'true' }
  }
}

const SYNTHETIC_FIELD = {
  const: true,
  description: 'present (true) when the service holds synthetic demo data (also the x-tidewatch-synthetic header)'
}

const BAD_REQUEST =
  'invalid_parameter, invalid_body or invalid_record: a malformed or out-of-range parameter or body field, an unknown or repeated query parameter; unknown_symbol: a well-formed symbol without stored data. A value the schema admits can still be refused by a rule its description states ("Rule: ...").'

/** Plain JSON Schema of a TypeBox schema (drops TypeBox's symbol-keyed metadata). */
function plain(s: TSchema | Json): Json {
  return JSON.parse(JSON.stringify(s)) as Json
}

function err(description: string, headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
  }
}

function errorResponses(r: Route): Record<string, Json> {
  const keyed = r.access === 'key' || r.access === 'public'
  // keyed and throttled answers carry the caller's rate-limit headers, refusals included
  const rate = keyed ? RATE_HEADERS : undefined
  const out: Record<string, Json> = { '400': err(BAD_REQUEST, rate) }
  if (r.path.includes(':')) out['404'] = err('not_found: unknown resource in the path')
  if (r.maxBodyBytes) out['413'] = err(`payload_too_large: a body larger than ${r.maxBodyBytes} bytes`)
  if (r.access === 'admin') out['401'] = err('unauthorized: missing or wrong admin bearer token')
  if (keyed) {
    out['401'] = err(
      r.access === 'public'
        ? 'unauthorized: a malformed, unknown or revoked API key (no key: the public throttle applies)'
        : 'unauthorized: a missing, malformed, unknown or revoked API key',
      {
        'WWW-Authenticate': { description: 'ApiKey realm="tidewatch", header="X-API-Key"', schema: { type: 'string' } }
      }
    )
    out['403'] = err(
      "forbidden: the key's plan lacks this endpoint or the symbol (the message names the plan that has it)",
      rate
    )
    out['429'] = err(
      r.access === 'public'
        ? 'rate_limited: the per-IP throttle (no key), or quota_exceeded: the daily quota (key)'
        : 'quota_exceeded: the daily quota is used up',
      { 'Retry-After': RETRY_AFTER, ...RATE_HEADERS }
    )
  }
  if (isDataRoute(r)) {
    out['503'] = err('warming_up: the service is starting and its data is not complete yet', {
      'Retry-After': RETRY_AFTER,
      ...rate
    })
  }
  out['500'] = err('internal: unexpected failure (logged with the correlation id)', {
    'X-Correlation-Id': { description: 'the correlation_id of the body', schema: { type: 'string' } }
  })
  return out
}

/** The success response's JSON schema; data routes may carry the synthetic label field. */
function successSchema(r: Route): Json | undefined {
  if (!r.response) return undefined
  const schema = plain(r.response)
  if (isDataRoute(r) && schema['type'] === 'object' && schema['properties']) {
    schema['properties'] = { synthetic: SYNTHETIC_FIELD, ...(schema['properties'] as Json) }
  }
  return schema
}

function successResponse(r: Route): Json {
  const schema = successSchema(r)
  const headers = {
    ...(r.access === 'key' || r.access === 'public' ? RATE_HEADERS : {}),
    ...(isDataRoute(r) ? SYNTHETIC_HEADERS : {})
  }
  return {
    description: 'success',
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(schema ? { content: { 'application/json': { schema } } } : {})
  }
}

function withNotes(
  responses: Record<string, Json>,
  success: [string, Json],
  notes: OperationNotes | undefined
): Record<string, Json> {
  const out: Record<string, Json> = {}
  const replaced = notes?.success
  if (replaced === undefined) out[success[0]] = success[1]
  else if (replaced !== null) {
    const headers = { ...(success[1]['headers'] as Json | undefined), ...(replaced.response['headers'] as Json) }
    out[replaced.status] = { ...replaced.response, ...(Object.keys(headers).length ? { headers } : {}) }
  }
  for (const [status, r] of Object.entries(responses)) out[status] = r
  for (const [status, extra] of Object.entries(notes?.responses ?? {})) {
    const had = out[status]
    out[status] = had
      ? {
          ...had,
          description: `${String(had['description'])}; or ${extra.description}`,
          ...(extra.headers ? { headers: { ...(had['headers'] as Json | undefined), ...extra.headers } } : {})
        }
      : err(extra.description, extra.headers)
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)))
}

function parameters(r: Route): Json[] {
  const out: Json[] = []
  const declared = (r.pathParams?.properties ?? {}) as Record<string, TSchema>
  for (const m of r.path.matchAll(/:(\w+)/g)) {
    const s = declared[m[1]!]
    const schema = s ? plain(s) : { type: 'string' }
    out.push({
      name: m[1],
      in: 'path',
      required: true,
      ...(schema['description'] === undefined ? {} : { description: schema['description'] }),
      schema
    })
  }
  const props = (r.query?.properties ?? {}) as Record<string, TSchema>
  const required = new Set((r.query?.required as string[] | undefined) ?? [])
  for (const [name, s] of Object.entries(props)) {
    const schema = plain(s)
    out.push({
      name,
      in: 'query',
      // a parameter with a default may be left out, whatever the object schema's `required` says
      required: required.has(name) && schema['default'] === undefined,
      description: schema['description'],
      schema,
      ...(schema['x-format'] === 'csv' ? { style: 'form', explode: false } : {})
    })
  }
  return out
}

/** A JSON body: the server refuses fields it does not declare (server/validate.ts). */
function jsonBody(r: Route): Json {
  return {
    required: true,
    content: { 'application/json': { schema: { ...plain(r.body!), additionalProperties: false } } }
  }
}

function operation(r: Route, key: string): Json {
  const notes = OPERATION_NOTES[key]
  const description = `${r.description ?? ''}${notes?.description ?? ''}`.trim()
  const op: Json = {
    summary: r.summary,
    ...(description ? { description } : {}),
    tags: r.tags,
    operationId: `${r.method.toLowerCase()}${r.path.replace(/[/:](\w)/g, (_, c: string) => c.toUpperCase()).replace(/\W/g, '')}`,
    parameters: parameters(r),
    responses: withNotes(errorResponses(r), [String(r.status ?? 200), successResponse(r)], notes),
    ...(r.access === 'admin' ? { security: [{ AdminToken: [] }] } : {}),
    ...(r.access === 'key' ? { security: [{ ApiKey: [] }] } : {}),
    ...(r.access === 'public' ? { security: [{}, { ApiKey: [] }] } : {}),
    ...(r.access === 'none' ? { security: [] } : {})
  }
  if (r.body) op['requestBody'] = jsonBody(r)
  if (r.rawBody) {
    const items = r.rawBody.itemSchemas
    op['requestBody'] = {
      required: true,
      description: r.rawBody.description,
      content: {
        [r.rawBody.contentType]: {
          schema: { type: 'string' },
          ...(items && {
            'x-item-schema': {
              oneOf: Object.values(items).map((schema) => plain(schema))
            }
          })
        }
      }
    }
  }
  return op
}

/** OpenAPI path template of a route path: `/v1/admin/keys/:id` -> `/v1/admin/keys/{id}`. */
export function openapiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}')
}

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  service: 'health, readiness and this document (no key)',
  options: 'options chain and its history',
  whales: 'whale events and summary',
  derivatives: 'derivatives screener',
  onchain: 'on-chain metrics',
  confirm: 'trade confirmation (advice only)',
  historical: 'historical candles and aligned datasets',
  history: 'funding-rate history',
  backtest: 'backtest data and bulk export',
  stream: 'push stream (WebSocket)',
  account: "the calling key's usage",
  signals: 'signal events the engine fired (HIGH, MEDIUM, VETO, SIGNAL)',
  webhooks: 'outbound webhooks: registrations, test deliveries and delivery history',
  alerts: 'inbound alerts from charting platforms (secret in the body) and their settings',
  node: 'node intelligence on your own BSC and Avalanche nodes: honeypot simulation, token risk, node health, new pairs', // node intelligence
  admin: 'administration (bearer ADMIN_TOKEN)'
}

export function buildOpenApi(routes: readonly Route[], version: string): Json {
  const paths: Record<string, Json> = {}
  for (const r of routes) {
    const p = openapiPath(r.path)
    ;(paths[p] ??= {})[r.method.toLowerCase()] = operation(r, `${r.method} ${p}`)
  }
  const tags = [...new Set(routes.flatMap((r) => r.tags))].sort()
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tidewatch API',
      version,
      description:
        'Crypto market intelligence. Errors use one envelope {"error":{"code","message","param"?}}. Unknown query parameters answer 400. Lengths are counted in Unicode code points.',
      // package.json says UNLICENSED: no licence is granted to use the software or the API
      license: { name: 'Proprietary (UNLICENSED): no licence is granted', identifier: 'LicenseRef-Proprietary' }
    },
    servers: [{ url: '/', description: 'this server' }],
    tags: tags.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
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
