/**
 * @module
 * Request validation from the route's TypeBox schemas. Query strings: every parameter must be declared
 * (unknown ones answer 400, so a typo never silently falls back to a default), given at most once, and
 * within its schema's type, range or value list; defaults are applied. JSON bodies: an object with the
 * declared properties only. Messages name the parameter and what it accepts.
 */
import type { TObject, TSchema } from '@sinclair/typebox'
import { ApiError } from '../engine/errors.js'

type Json = Record<string, unknown>

function bad(param: string, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param })
}

function describe(name: string, s: Json): string {
  if (s['type'] === 'integer')
    return `${name} must be an integer from ${String(s['minimum'])} to ${String(s['maximum'])}`
  if (s['type'] === 'number') return `${name} must be a number from ${String(s['minimum'])} to ${String(s['maximum'])}`
  if (Array.isArray(s['enum'])) return `${name} must be one of ${(s['enum'] as string[]).join(', ')}`
  if (s['type'] === 'array') {
    const items = s['items'] as Json
    return `${name} must be a comma-separated list of ${(items['enum'] as string[] | undefined)?.join(', ') ?? 'values'}`
  }
  if (s['type'] === 'boolean') return `${name} must be true or false`
  if (typeof s['pattern'] === 'string') return `${name} must match ${String(s['pattern'])}`
  return `${name} must be a string of at most ${String(s['maxLength'] ?? 64)} characters`
}

function inRange(n: number, s: Json): boolean {
  return (
    (s['minimum'] === undefined || n >= (s['minimum'] as number)) &&
    (s['maximum'] === undefined || n <= (s['maximum'] as number))
  )
}

/** Converts one text value per its schema, or throws a 400 naming the parameter. */
type Coercer = (raw: string) => unknown

/**
 * Compiles the conversion of one parameter once, at start: the message, value list, range and pattern
 * are prepared here so a request only tests its value (no RegExp or closure built per request).
 */
function compileCoercer(name: string, s: Json): Coercer {
  const message = describe(name, s)
  const fail = (): never => {
    throw bad(name, message)
  }
  switch (s['type']) {
    case 'integer':
      return (raw) => {
        if (!/^-?\d{1,16}$/.test(raw)) fail()
        const n = Number(raw)
        return inRange(n, s) ? n : fail()
      }
    case 'number':
      return (raw) => {
        const n = Number(raw)
        return raw.trim() !== '' && Number.isFinite(n) && inRange(n, s) ? n : fail()
      }
    case 'boolean':
      return (raw) => (raw === 'true' ? true : raw === 'false' ? false : fail())
    case 'array': {
      const allowed = (s['items'] as Json)['enum'] as string[] | undefined
      return (raw) => {
        const values = raw.split(',').map((v) => v.trim())
        if (values.some((v) => v === '')) fail()
        if (allowed && values.some((v) => !allowed.includes(v))) fail()
        return [...new Set(values)]
      }
    }
    default: {
      const allowed = s['enum'] as string[] | undefined
      if (allowed) return (raw) => (allowed.includes(raw) ? raw : fail())
      const maxLength = (s['maxLength'] as number | undefined) ?? 64
      const pattern = typeof s['pattern'] === 'string' ? new RegExp(s['pattern']) : null
      return (raw) => {
        if (raw === '' || raw.length > maxLength) fail()
        if (pattern !== null && !pattern.test(raw)) fail()
        return raw
      }
    }
  }
}

export type QueryValidator = (query: URLSearchParams) => Json

/**
 * Compiles a query schema once (per route, at start) into a validator: the parameter table, the required
 * set and the defaults are prepared here, so a request only looks values up.
 */
export function compileQuery(schema: TObject | undefined): QueryValidator {
  const props = new Map(
    Object.entries((schema?.properties ?? {}) as Record<string, TSchema>).map(([k, v]) => [k, v as Json])
  )
  const coercers = new Map([...props].map(([k, v]) => [k, compileCoercer(k, v)]))
  const names = [...props.keys()]
  const takes = names.length ? `this endpoint takes ${names.join(', ')}` : 'this endpoint takes none'
  const required = new Set((schema?.required as string[] | undefined) ?? [])
  const defaults = names
    .filter((n) => props.get(n)!['default'] !== undefined)
    .map((n) => [n, props.get(n)!['default']] as const)
  const missing = names.filter((n) => required.has(n) && props.get(n)!['default'] === undefined)
  return (query) => {
    const out: Json = {}
    for (const [name, raw] of query) {
      const coerce = coercers.get(name)
      if (!coerce) throw bad(name, `unknown parameter '${name}'; ${takes}`)
      if (Object.hasOwn(out, name)) throw bad(name, `parameter ${name} is given more than once`)
      out[name] = coerce(raw)
    }
    for (const [name, def] of defaults) if (!Object.hasOwn(out, name)) out[name] = def
    for (const name of missing) {
      if (!Object.hasOwn(out, name)) throw bad(name, `${name} is required; ${describe(name, props.get(name)!)}`)
    }
    return out
  }
}

function checkValue(name: string, v: unknown, s: Json): void {
  const fail = (): never => {
    throw bad(name, describe(name, s))
  }
  switch (s['type']) {
    case 'integer':
      if (!Number.isSafeInteger(v) || !inRange(v as number, s)) fail()
      return
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v) || !inRange(v, s)) fail()
      return
    case 'boolean':
      if (typeof v !== 'boolean') fail()
      return
    case 'array': {
      if (!Array.isArray(v)) fail()
      const arr = v as unknown[]
      const max = s['maxItems'] as number | undefined
      if (max !== undefined && arr.length > max) throw bad(name, `${name} may have at most ${max} items`)
      if ((s['minItems'] as number | undefined) !== undefined && arr.length < (s['minItems'] as number)) {
        throw bad(name, `${name} needs at least ${String(s['minItems'])} item(s)`)
      }
      arr.forEach((item, i) => checkValue(`${name}[${i}]`, item, s['items'] as Json))
      return
    }
    default: {
      if (typeof v !== 'string') fail()
      const str = v as string
      const allowed = s['enum'] as string[] | undefined
      if (allowed && !allowed.includes(str)) fail()
      const min = (s['minLength'] as number | undefined) ?? 0
      if (str.length < min) throw bad(name, `${name} must be at least ${min} characters`)
      if (str.length > ((s['maxLength'] as number | undefined) ?? 256)) fail()
      if (typeof s['pattern'] === 'string' && !new RegExp(s['pattern']).test(str)) fail()
    }
  }
}

/** Parses and validates a JSON object body; unknown properties are rejected. */
export function parseJsonBody(schema: TObject, body: Buffer | null): Json {
  if (!body || body.length === 0) throw new ApiError('invalid_body', 'the body must be a JSON object')
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch {
    throw new ApiError('invalid_body', 'the body is not valid JSON')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('invalid_body', 'the body must be a JSON object')
  }
  const obj = value as Json
  const props = schema.properties as Record<string, TSchema>
  for (const key of Object.keys(obj)) {
    if (!Object.hasOwn(props, key))
      throw bad(key, `unknown field '${key}'; the body takes ${Object.keys(props).join(', ')}`)
  }
  const required = new Set((schema.required as string[] | undefined) ?? [])
  const out: Json = {}
  for (const [name, s] of Object.entries(props)) {
    if (obj[name] === undefined) {
      if (required.has(name)) throw bad(name, `${name} is required; ${describe(name, s as Json)}`)
      continue
    }
    checkValue(name, obj[name], s as Json)
    out[name] = obj[name]
  }
  return out
}
