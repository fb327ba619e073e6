/**
 * @module
 * Request validation from the route's TypeBox schemas, applying exactly the JSON Schema keywords the OpenAPI
 * document shows (schemas/api/params.ts). Query strings: every parameter must be declared (unknown ones
 * answer 400, so a typo never silently falls back to a default), given at most once, and within its
 * schema's type, range, value list, length, pattern or format; defaults are applied. JSON bodies: an object
 * with the declared properties only (`additionalProperties: false`). Messages name the parameter and what
 * it accepts.
 *
 * Lengths are counted in Unicode code points, as JSON Schema counts them (`maxLength: 64` admits 64 emoji,
 * which are 128 UTF-16 units). Comma lists (`x-format: csv`) are split on `,` without trimming: each item
 * must pass the item schema, and `minItems`/`maxItems` count the items as written (duplicates count once in
 * the value the handler gets). A body value under `oneOf` must fit exactly one branch.
 */
import type { TObject, TSchema } from '@sinclair/typebox'
import { ApiError } from '../engine/errors.js'
import { REFUSAL, type Refusal } from '../schemas/api/params.js'

type Json = Record<string, unknown>

function bad(param: string, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param })
}

/** Longest part of a client-chosen name (an unknown parameter or field) an error repeats, code units. */
export const MAX_ECHOED_NAME = 64

/** A client-chosen name as an error repeats it: cut at MAX_ECHOED_NAME, with how long it was. */
export function echoName(name: string): string {
  if (name.length <= MAX_ECHOED_NAME) return name
  // a cut between the halves of a surrogate pair would leave a lone surrogate
  const end = /[\uD800-\uDBFF]/.test(name.charAt(MAX_ECHOED_NAME - 1)) ? MAX_ECHOED_NAME - 1 : MAX_ECHOED_NAME
  return `${name.slice(0, end)}... (${name.length} characters)`
}

function unknownName(name: string, message: (shown: string) => string): ApiError {
  const shown = echoName(name)
  return bad(shown, message(shown))
}

/** Code points of `s`; UTF-16 length is an upper bound, so only long strings are counted. */
function codePoints(s: string, atMost: number): number {
  if (s.length <= atMost) return s.length
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // a high surrogate followed by a low one is one code point
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    n++
  }
  return n
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** RFC 3339 full-date (`format: date`, as ajv-formats checks it): a day that exists, years 0000-9999. */
export function isFullDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (!m) return false
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  if (month < 1 || month > 12 || day < 1) return false
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)
}

function range(s: Json): string {
  const min = s['minimum'] as number | undefined
  const max = s['maximum'] as number | undefined
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`
  if (min !== undefined) return ` of at least ${min}`
  return max === undefined ? '' : ` of at most ${max}`
}

function lengths(s: Json): string {
  const min = (s['minLength'] as number | undefined) ?? 0
  const max = s['maxLength'] as number | undefined
  if (max === undefined) return min > 0 ? `at least ${min} character${min === 1 ? '' : 's'}` : 'any text'
  return min > 0 ? `${min} to ${max} characters` : `at most ${max} characters`
}

function describeString(name: string, s: Json): string {
  if (Array.isArray(s['enum'])) return `${name} must be one of ${(s['enum'] as string[]).join(', ')}`
  if (s['format'] === 'date') return `${name} must be a date YYYY-MM-DD (UTC) that exists, e.g. 2026-01-31`
  if (typeof s['x-rule'] === 'string') return `${name} must be ${s['x-rule']}`
  if (typeof s['pattern'] === 'string') {
    const examples = Array.isArray(s['examples']) ? `, e.g. ${(s['examples'] as string[]).join(', ')}` : ''
    return `${name} must match ${s['pattern']}${examples}`
  }
  return `${name} must be ${lengths(s)}`
}

function describe(name: string, s: Json): string {
  if (Array.isArray(s['oneOf']) && typeof s['x-rule'] === 'string') return `${name} must be ${s['x-rule']}`
  switch (s['type']) {
    case 'integer':
      return `${name} must be an integer${range(s)}`
    case 'number':
      return `${name} must be a number${range(s)}`
    case 'boolean':
      return `${name} must be true or false`
    case 'array': {
      const items = s['items'] as Json
      const values = (items['enum'] as string[] | undefined)?.join(', ') ?? 'values'
      return s['x-format'] === 'csv'
        ? `${name} must be a comma-separated list of ${values} (at least one, no empty items)`
        : `${name} must be a list of ${values}`
    }
    default:
      return describeString(name, s)
  }
}

function inRange(n: number, s: Json): boolean {
  return (
    (s['minimum'] === undefined || n >= (s['minimum'] as number)) &&
    (s['maximum'] === undefined || n <= (s['maximum'] as number))
  )
}

/** A string check compiled once: the regular expression is built at start, not per request. */
type StringCheck = (v: string) => boolean

function compileStringCheck(s: Json): StringCheck {
  const allowed = s['enum'] as string[] | undefined
  if (allowed) return (v) => allowed.includes(v)
  const min = (s['minLength'] as number | undefined) ?? 0
  const max = (s['maxLength'] as number | undefined) ?? Infinity
  // `u`: JSON Schema patterns are ECMA-262 regular expressions with Unicode semantics (as ajv compiles them)
  const pattern = typeof s['pattern'] === 'string' ? new RegExp(s['pattern'], 'u') : null
  const date = s['format'] === 'date'
  return (v) => {
    if (v.length < min) return false
    if (max !== Infinity && codePoints(v, max) > max) return false
    if (pattern !== null && !pattern.test(v)) return false
    return !date || isFullDate(v)
  }
}

/** Converts one text value per its schema, or throws a 400 naming the parameter. */
type Coercer = (raw: string) => unknown

/** A JSON number as text (no spaces, no hex, no `Infinity`). */
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

/** The refusal message a schema carries for `value` (schemas/api/params.ts `REFUSAL`), if any. */
function refusalOf(name: string, s: Json, value: string): string | undefined {
  return (s as { [REFUSAL]?: Refusal })[REFUSAL]?.(name, value)
}

function compileListCoercer(name: string, s: Json, fail: () => never): Coercer {
  const itemSchema = s['items'] as Json
  const item = compileStringCheck(itemSchema)
  const min = (s['minItems'] as number | undefined) ?? 0
  const max = s['maxItems'] as number | undefined
  return (raw) => {
    const values = raw.split(',')
    if (values.length < min) fail()
    const refused = values.find((v) => !item(v))
    if (refused !== undefined) {
      const message = refused === '' ? undefined : refusalOf(name, itemSchema, refused)
      if (message === undefined) return fail()
      throw bad(name, message)
    }
    if (max !== undefined && values.length > max) throw bad(name, `${name} may have at most ${max} items`)
    return [...new Set(values)]
  }
}

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
        return NUMBER_TEXT.test(raw) && Number.isFinite(n) && inRange(n, s) ? n : fail()
      }
    case 'boolean':
      return (raw) => (raw === 'true' ? true : raw === 'false' ? false : fail())
    case 'array':
      return compileListCoercer(name, s, fail)
    default: {
      const check = compileStringCheck(s)
      return (raw) => {
        if (check(raw)) return raw
        const message = refusalOf(name, s, raw)
        if (message === undefined) return fail()
        throw bad(name, message)
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
      if (!coerce) throw unknownName(name, (n) => `unknown parameter '${n}'; ${takes}`)
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

/** String checks of body schemas, compiled on first use (bodies are validated per request). */
const bodyStringChecks = new WeakMap<Json, StringCheck>()

/**
 * `oneOf`: exactly one branch takes the value. When none does, a list whose items each fit some branch
 * (e.g. `*` beside names, where the branches are `["*"]` and names without it) is refused with the
 * schema's own rule (`x-rule`), anything else with the last branch's message (naming the item at fault).
 */
function checkOneOf(name: string, v: unknown, s: Json): void {
  const branches = s['oneOf'] as Json[]
  let taken = 0
  let last: unknown = null
  for (const b of branches) {
    try {
      checkValue(name, v, b)
      taken++
    } catch (err) {
      last = err
    }
  }
  if (taken === 1) return
  if (taken > 1 || (Array.isArray(v) && v.length > 1 && v.every((item) => fitsSomeItem(item, branches))))
    throw bad(name, describe(name, s))
  throw last
}

function fitsSomeItem(item: unknown, branches: readonly Json[]): boolean {
  return branches.some((b) => {
    if (b['type'] !== 'array') return false
    try {
      checkValue('', item, b['items'] as Json)
      return true
    } catch {
      return false
    }
  })
}

function checkValue(name: string, v: unknown, s: Json): void {
  if (Array.isArray(s['oneOf'])) return checkOneOf(name, v, s)
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
      let check = bodyStringChecks.get(s)
      if (!check) bodyStringChecks.set(s, (check = compileStringCheck(s)))
      if (check(v as string)) return
      const message = refusalOf(name, s, v as string)
      if (message === undefined) return fail()
      throw bad(name, message)
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
      throw unknownName(key, (n) => `unknown field '${n}'; the body takes ${Object.keys(props).join(', ')}`)
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
