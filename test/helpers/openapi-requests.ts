/**
 * Requests generated from an operation of an OpenAPI document: valid ones (every value drawn from its
 * documented schema) and invalid ones (a valid request with exactly one thing broken: a value off its
 * schema, a missing required, an unknown or repeated parameter, a bad JSON body), all refused by the
 * schema checks that run before any handler.
 */
import fc from 'fast-check'
import { invalidText, queryText, validObject, validValue, type Schema } from './openapi-arbitraries.js'
import type { Json, Operation, Parameter } from './openapi-document.js'

export interface Request {
  /** path with its parameters filled in */
  readonly path: string
  readonly query: readonly (readonly [string, string])[]
  readonly body?: string
}

export interface RequestSources {
  /** values of a path parameter; default: any text its schema admits */
  readonly pathParam?: (o: Operation, p: Parameter) => fc.Arbitrary<string> | undefined
  /** values of a JSON body field; default: its schema's */
  readonly bodyField?: (o: Operation, name: string, schema: Schema) => fc.Arbitrary<unknown> | undefined
  /** bodies of operations that take a raw (non-JSON) body, by the path parameter values */
  readonly rawBody?: (params: Readonly<Record<string, string>>) => fc.Arbitrary<string>
}

function pathWith(o: Operation, values: Readonly<Record<string, string>>): string {
  return o.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x'))
}

/** An optional parameter is sent 30% of the time (each sent one may bring a rule into play). */
const optional = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ arbitrary: fc.constant(null), weight: 7 }, { arbitrary: a, weight: 3 })

export function validRequest(o: Operation, sources: RequestSources = {}): fc.Arbitrary<Request> {
  const path: Record<string, fc.Arbitrary<string>> = {}
  const query: fc.Arbitrary<readonly [string, string] | null>[] = []
  for (const p of o.params) {
    if (p.in === 'path') {
      path[p.name] = sources.pathParam?.(o, p) ?? validValue(p.schema).map(String)
      continue
    }
    const value = validValue(p.schema).map((v) => [p.name, queryText(v)] as const)
    query.push(p.required ? value : optional(value))
  }
  const field = sources.bodyField && ((name: string, s: Schema) => sources.bodyField!(o, name, s))
  const json = o.bodySchema ? validObject(o.bodySchema, field).map((b) => JSON.stringify(b)) : fc.constant(undefined)
  return fc.tuple(fc.record(path), fc.tuple(...query)).chain(([pv, q]) =>
    (o.rawBody ? (sources.rawBody?.(pv) ?? fc.string({ maxLength: 40 })) : json).map((body) => ({
      path: pathWith(o, pv),
      query: q.filter((x): x is readonly [string, string] => x !== null),
      ...(body === undefined ? {} : { body })
    }))
  )
}

type Breaker = (r: Request) => { req: Request; broken: string }

/** Whether a value is of a type the schema admits (so it cannot serve as a wrong-typed value). */
function admits(s: Schema, v: unknown): boolean {
  const t = s['type']
  if (v === null) return t === 'null'
  if (typeof v === 'boolean') return t === 'boolean'
  if (typeof v === 'number') return t === 'number' || (t === 'integer' && Number.isInteger(v))
  if (typeof v === 'string') {
    if (t !== 'string') return false
    if (Array.isArray(s['enum'])) return s['enum'].includes(v)
    const pattern = s['pattern']
    return typeof pattern !== 'string' || new RegExp(pattern, 'u').test(v)
  }
  return t === 'object'
}

function queryBreakers(p: Parameter): fc.Arbitrary<Breaker>[] {
  const out: fc.Arbitrary<Breaker>[] = []
  const bad = invalidText(p.schema)
  if (bad) {
    out.push(
      bad.map((text) => (r: Request) => ({
        req: { ...r, query: [...r.query.filter(([k]) => k !== p.name), [p.name, text]] },
        broken: `${p.name}=${JSON.stringify(text)}`
      }))
    )
  }
  if (p.required) {
    out.push(
      fc.constant((r: Request) => ({
        req: { ...r, query: r.query.filter(([k]) => k !== p.name) },
        broken: `missing ${p.name}`
      }))
    )
  }
  out.push(
    validValue(p.schema).map((v) => (r: Request) => ({
      req: { ...r, query: [...r.query, [p.name, queryText(v)], [p.name, queryText(v)]] },
      broken: `repeated ${p.name}`
    }))
  )
  return out
}

function bodyBreakers(body: Schema): fc.Arbitrary<Breaker>[] {
  const props = (body['properties'] ?? {}) as Record<string, Schema>
  const required = (body['required'] as string[] | undefined) ?? []
  const edit = (r: Request, f: (b: Json) => unknown, broken: string) => ({
    req: { ...r, body: JSON.stringify(f(JSON.parse(r.body ?? '{}') as Json)) },
    broken
  })
  const out: fc.Arbitrary<Breaker>[] = [
    fc.constantFrom('', 'not json', '[]', 'null', '"text"').map((text) => (r: Request) => ({
      req: { ...r, body: text },
      broken: `body ${JSON.stringify(text)}`
    }))
  ]
  if (body['additionalProperties'] === false) {
    out.push(fc.constant((r: Request) => edit(r, (b) => ({ ...b, zz_unknown: 1 }), 'unknown body field')))
  }
  for (const name of required) {
    out.push(
      fc.constant((r: Request) =>
        edit(r, (b) => Object.fromEntries(Object.entries(b).filter(([k]) => k !== name)), `missing ${name}`)
      )
    )
  }
  for (const [name, s] of Object.entries(props)) {
    if (Array.isArray(s['oneOf'])) {
      out.push(
        oneOfBreaker(s['oneOf'] as Schema[]).map(
          (v) => (r: Request) => edit(r, (b) => ({ ...b, [name]: v }), `${name}: ${JSON.stringify(v)}`)
        )
      )
      continue
    }
    const list = s['type'] === 'array'
    const bad = invalidText(list ? (s['items'] as Schema) : s)
    const wrongType = fc.constantFrom<unknown>(...[17, true, null, { a: 1 }, 'text'].filter((v) => !admits(s, v)))
    const value = bad
      ? fc.oneof(
          bad.map((t) => (list ? [t] : t)),
          wrongType
        )
      : wrongType
    out.push(value.map((v) => (r: Request) => edit(r, (b) => ({ ...b, [name]: v }), `${name}: ${JSON.stringify(v)}`)))
  }
  return out
}

/**
 * A value no branch of a oneOf of lists takes: an item no branch's items admit, items of two branches
 * together (`*` beside a name), or not a list.
 */
function oneOfBreaker(branches: readonly Schema[]): fc.Arbitrary<unknown> {
  const items = branches.map((b) => b['items'] as Schema)
  const admitted = (v: string) => items.some((i) => admits(i, v))
  const lone = items
    .map((i) => invalidText(i)?.filter((t) => !admitted(t)))
    .filter((a): a is fc.Arbitrary<string> => a !== undefined)
    .map((a) => a.map((t) => [t]))
  const mixed = fc.tuple(...items.map(validValue)).map((vs) => vs)
  return fc.oneof(...lone, mixed, fc.constantFrom<unknown>(17, true, null, { a: 1 }, 'text'))
}

export function invalidRequest(
  o: Operation,
  sources: RequestSources = {}
): fc.Arbitrary<{ req: Request; broken: string }> {
  const breakers: fc.Arbitrary<Breaker>[] = [
    fc.constant((r: Request) => ({
      req: { ...r, query: [...r.query, ['zz_unknown', '1']] },
      broken: 'unknown parameter'
    }))
  ]
  for (const p of o.params) if (p.in === 'query') breakers.push(...queryBreakers(p))
  if (o.bodySchema) breakers.push(...bodyBreakers(o.bodySchema))
  return fc.tuple(validRequest(o, sources), fc.oneof(...breakers)).map(([r, breakIt]) => breakIt(r))
}
