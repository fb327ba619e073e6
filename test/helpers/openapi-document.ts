/**
 * Reading an OpenAPI 3.1 document for tests: its operations (parameters, bodies, who may call) and a
 * checker of answers against the documented responses (status, content type, headers, JSON body) with Ajv
 * in JSON Schema 2020-12 mode and ajv-formats. Unknown schema keywords fail compilation (Ajv strict mode),
 * except the document's own annotations `x-format` and `x-rule`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { Schema } from './openapi-arbitraries.js'

// ajv-formats is CommonJS with `exports.default`: under NodeNext the function is the default's default
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020
) => Ajv2020

export type Json = Record<string, unknown>

export interface Parameter {
  readonly name: string
  readonly in: 'query' | 'path'
  readonly required: boolean
  readonly description?: string
  readonly schema: Schema
}

export interface Operation {
  /** `GET /v1/health` */
  readonly id: string
  readonly method: string
  /** path template, `/v1/admin/keys/{id}` */
  readonly path: string
  readonly op: Json
  readonly params: readonly Parameter[]
  /** the JSON body's schema, or null */
  readonly bodySchema: Schema | null
  /** a body of another media type (NDJSON), described as a string */
  readonly rawBody: boolean
  readonly access: 'none' | 'public' | 'key' | 'admin'
}

function accessOf(security: readonly Json[]): Operation['access'] {
  if (security.length === 0) return 'none'
  if (security.some((s) => Object.keys(s).length === 0)) return 'public'
  return security.some((s) => 'AdminToken' in s) ? 'admin' : 'key'
}

/**
 * Every operation: POSTs first, shorter paths first (`POST /v1/webhooks` creates what `/v1/webhooks/test`
 * and `/v1/webhooks/{id}` name), DELETEs last (revocations after every use of the ids).
 */
export function operations(doc: Json): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      const o = op as Json
      const content = (o['requestBody'] as Json | undefined)?.['content'] as Record<string, Json> | undefined
      out.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        op: o,
        params: (o['parameters'] ?? []) as Parameter[],
        bodySchema: (content?.['application/json']?.['schema'] as Schema | undefined) ?? null,
        rawBody: content !== undefined && !('application/json' in content),
        access: accessOf(o['security'] as Json[])
      })
    }
  }
  const rank = (o: Operation) => (o.method === 'POST' ? 0 : o.method === 'DELETE' ? 2 : 1)
  return out.sort((a, b) => rank(a) - rank(b) || a.path.length - b.path.length)
}

/** `$ref`s to components become Ajv schema ids (the components are added to Ajv by name). */
function refsToIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(refsToIds)
  if (typeof v !== 'object' || v === null) return v
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      k === '$ref' && typeof x === 'string' ? x.replace('#/components/schemas/', '') : refsToIds(x)
    ])
  )
}

export function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim()
}

export class AnswerChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true })
  private readonly validators = new Map<string, ValidateFunction>()

  constructor(
    doc: Json,
    /** where mismatches are reported */
    private readonly problems: string[]
  ) {
    this.ajv.addVocabulary(['x-format', 'x-rule'])
    addFormats(this.ajv)
    for (const [name, schema] of Object.entries((doc['components'] as Json)['schemas'] as Json)) {
      this.ajv.addSchema(schema as Json, name)
    }
  }

  /** The compiled schema (cached by `key`); throws when the schema is not valid JSON Schema 2020-12. */
  validator(key: string, schema: Schema): ValidateFunction {
    let v = this.validators.get(key)
    if (!v) this.validators.set(key, (v = this.ajv.compile(refsToIds(schema) as Json)))
    return v
  }

  /** Checks one answer against the operation's documented responses; returns its JSON object body, if any. */
  check(o: Operation, what: string, status: number, headers: Headers, text: string): Json | null {
    const documented = (o.op['responses'] as Record<string, Json>)[String(status)]
    if (!documented) {
      this.problems.push(`${what}: status ${status} is not documented (${text.slice(0, 200)})`)
      return null
    }
    this.checkHeaders(o, what, status, documented, headers)
    const content = documented['content'] as Record<string, Json> | undefined
    if (!content) {
      if (text !== '') this.problems.push(`${what}: ${status} documents no body but got ${text.slice(0, 100)}`)
      return null
    }
    const type = mediaType(headers.get('content-type'))
    const media = content[type]
    if (!media) {
      this.problems.push(`${what}: ${status} content type ${type} is not documented (${Object.keys(content)})`)
      return null
    }
    if (type !== 'application/json') return null
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      this.problems.push(`${what}: ${status} body is not JSON: ${text.slice(0, 200)}`)
      return null
    }
    const v = this.validator(`body ${o.id} ${status} ${type}`, media['schema'] as Schema)
    if (!v(body)) this.problems.push(`${what}: ${status} body off the document: ${this.ajv.errorsText(v.errors)}`)
    return typeof body === 'object' && body !== null ? (body as Json) : null
  }

  /** Documented headers that are present must match their schema (integers read from their text). */
  private checkHeaders(o: Operation, what: string, status: number, documented: Json, headers: Headers): void {
    for (const [name, h] of Object.entries((documented['headers'] ?? {}) as Record<string, Json>)) {
      const value = headers.get(name)
      if (value === null) continue
      const schema = h['schema'] as Schema
      const parsed = schema['type'] === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value
      if (!this.validator(`header ${o.id} ${status} ${name}`, schema)(parsed)) {
        this.problems.push(`${what}: header ${name}: ${value} is not ${JSON.stringify(schema)}`)
      }
    }
  }
}
