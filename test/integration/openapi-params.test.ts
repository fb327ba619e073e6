/**
 * The document says what the server accepts, parameter by parameter. For every operation of the served
 * OpenAPI document and every query parameter, path parameter and JSON body field, values drawn from its
 * schema (fast-check, fixed seed) are sent over a real socket inside an otherwise plain request (the other
 * parameters at their examples or defaults):
 * - a value the schema admits is never refused for that parameter: no 400 naming it, except a refusal of
 *   the data (unknown_symbol, an invite that is not open) or a rule between parameters that the
 *   parameter's description states ("Rule: ...") and that PROSE_RULES below lists by its message;
 * - a value the schema refuses answers 400 naming that parameter (404 for a path segment that names no
 *   resource).
 * Rerun a failure with PARAMS_SEED=<seed printed>.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ndjson, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { operations, type Json, type Operation, type Parameter } from '../helpers/openapi-document.js'
import { invalidText, queryText, validValue, type Schema } from '../helpers/openapi-arbitraries.js'
import { openapiSeedRows } from '../helpers/openapi-seed.js'

const SEED = Number(process.env['PARAMS_SEED'] ?? 31)
/** Values per parameter: fixed counts keep the file near half a minute. */
const VALID_RUNS = 8
const INVALID_RUNS = 6

/** Not driven: a WebSocket (test/integration/stream.test.ts) and an import that would read files. */
const SKIPPED = new Set(['GET /v1/stream', 'POST /v1/admin/import'])

/**
 * Refusals of schema-valid values that a stated rule explains, by parameter: rules between parameters
 * (a range against the plan or the timeframe, a prefix against `exchange`) and rules of the data (a cross
 * pair whose base is known, an invite that is not open, a cursor the server did not issue). Each must
 * also be stated in the parameter's description as "Rule: ...".
 */
const PROSE_RULES: Readonly<Record<string, RegExp>> = {
  symbol: /is quoted in|but exchange is/,
  asset: /is quoted in|but exchange is/,
  symbols: /is quoted in|but exchange is/,
  lookback: /lookback|history|buckets|at most|interval/,
  target_timeframe: /whole multiple/,
  start_time: /./,
  end_time: /./,
  start: /./,
  end: /./,
  since: /./,
  cursor: /cursor/,
  // evaluation horizons: 1m to 30d, in the span notation
  horizons: /horizons takes|must be a count and a unit/,
  // a moment: a real calendar date and time (the pattern admits 2026-02-30), not after the server's clock
  known_by: /in the future|must be epoch milliseconds|give as_of with it/,
  // the same, and not before the plan's history depth (a 403 naming it)
  as_of: /in the future|must be epoch milliseconds|plan reaches/,
  snapshot: /snapshot/,
  invite: /invite/,
  token: /checksum/
}

const used = new Set<string>()

let srv: Awaited<ReturnType<typeof startTestServer>>
let doc: Json
let key = ''
const problems: string[] = []
const seen = new Map<string, number>()

beforeAll(async () => {
  // the generated webhook receivers are on loopback (test/helpers/openapi-arbitraries.ts): port 9, never reached
  srv = await startTestServer({ PUBLIC_RATE_PER_MIN: '100000', WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' })
  key = (await srv.running.ctx.keys.create('enterprise', 'params')).key
  doc = (await (await fetch(`${srv.base}/v1/openapi.json`)).json()) as Json
  for (const [kind, rows] of Object.entries(openapiSeedRows(Date.now()))) {
    const res = await fetch(`${srv.base}/v1/admin/ingest/${kind}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' },
      body: ndjson(rows)
    })
    expect(res.status, kind).toBe(201)
  }
}, 120_000)

afterAll(async () => {
  await srv?.stop()
})

/** The plain value of a schema: its first example, its default, or a drawn one. */
function plainValue(s: Schema): unknown {
  const examples = s['examples'] as unknown[] | undefined
  if (examples?.length) return examples[0]
  if (s['default'] !== undefined) return s['default']
  const items = s['items'] as Schema | undefined
  if (s['type'] === 'array' && items?.['examples']) return [(items['examples'] as unknown[])[0]]
  return fc.sample(validValue(s), { seed: SEED, numRuns: 1 })[0]
}

interface Sent {
  readonly path: Record<string, string>
  readonly query: Record<string, string>
  readonly body: Record<string, unknown> | null
}

/** The plain request of an operation: required parameters and body fields at their plain values. */
function plainRequest(o: Operation): Sent {
  const path: Record<string, string> = {}
  const query: Record<string, string> = {}
  for (const p of o.params) {
    if (p.in === 'path') path[p.name] = String(plainValue(p.schema))
    else if (p.required) query[p.name] = queryText(plainValue(p.schema))
  }
  let body: Record<string, unknown> | null = null
  if (o.bodySchema) {
    body = {}
    const props = (o.bodySchema['properties'] ?? {}) as Record<string, Schema>
    for (const name of (o.bodySchema['required'] as string[] | undefined) ?? []) body[name] = plainValue(props[name]!)
  }
  return { path, query, body }
}

async function send(o: Operation, r: Sent): Promise<{ status: number; error: Json; what: string }> {
  const url = new URL(
    `${srv.base}${o.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(r.path[n] ?? 'x'))}`
  )
  for (const [k, v] of Object.entries(r.query)) url.searchParams.set(k, v)
  const headers: Record<string, string> = { 'x-api-key': key }
  if (o.access === 'admin') headers['authorization'] = `Bearer ${TEST_ADMIN_TOKEN}`
  if (r.body) headers['content-type'] = 'application/json'
  const res = await fetch(url, {
    method: o.method,
    headers,
    ...(r.body ? { body: JSON.stringify(r.body) } : {}),
    signal: AbortSignal.timeout(15_000)
  })
  const text = await res.text()
  let error: Json = {}
  try {
    error = ((JSON.parse(text) as Json)['error'] ?? {}) as Json
  } catch {
    // not JSON: an export file or an NDJSON stream
  }
  const what = `${o.id} ${url.pathname}${url.search}${r.body ? ` body ${JSON.stringify(r.body).slice(0, 160)}` : ''}`
  const bucket = `${res.status}`
  seen.set(bucket, (seen.get(bucket) ?? 0) + 1)
  // 503: a capability without its node (chain_not_configured) or busy, as documented; 500 is a fault
  if (res.status >= 500 && res.status !== 503) problems.push(`${what}: ${res.status} ${text.slice(0, 200)}`)
  return { status: res.status, error, what }
}

/** The parameter an error names: `events[2]` names `events`. */
const named = (error: Json): string => String(error['param'] ?? '').replace(/\[\d+\]$/, '')

interface Target {
  readonly name: string
  readonly where: 'path' | 'query' | 'body'
  readonly schema: Schema
  readonly description: string
}

function targets(o: Operation): Target[] {
  const out: Target[] = o.params.map((p: Parameter) => ({
    name: p.name,
    where: p.in,
    schema: p.schema,
    description: `${p.description ?? ''} ${String(p.schema['description'] ?? '')}`
  }))
  const props = (o.bodySchema?.['properties'] ?? {}) as Record<string, Schema>
  for (const [name, schema] of Object.entries(props)) {
    out.push({ name, where: 'body', schema, description: String(schema['description'] ?? '') })
  }
  return out
}

function withValue(base: Sent, t: Target, value: unknown, text: string): Sent {
  if (t.where === 'path') return { ...base, path: { ...base.path, [t.name]: text } }
  if (t.where === 'query') return { ...base, query: { ...base.query, [t.name]: text } }
  return { ...base, body: { ...base.body, [t.name]: value } }
}

/** Whether a 400 naming `t` for a schema-valid value is a refusal the document states. */
function stated(o: Operation, t: Target, error: Json): boolean {
  const code = error['code']
  const description = `${t.description} ${String(o.op['description'] ?? '')}`
  if (code === 'unknown_symbol') return description.includes('unknown_symbol') || description.includes('Rule:')
  const rule = PROSE_RULES[t.name]
  if (rule !== undefined && rule.test(String(error['message'] ?? '')) && description.includes('Rule:')) {
    used.add(`${t.name} (${String(error['message']).slice(0, 110)})`)
    return true
  }
  return false
}

async function checkTarget(o: Operation, t: Target, seed: number): Promise<void> {
  const base = plainRequest(o)
  const itemSchema = t.schema['type'] === 'array' && t.where === 'body' ? (t.schema['items'] as Schema) : t.schema
  for (const value of fc.sample(validValue(t.schema), { seed, numRuns: VALID_RUNS })) {
    const res = await send(o, withValue(base, t, value, queryText(value)))
    if (res.status === 400 && named(res.error) === t.name && !stated(o, t, res.error)) {
      problems.push(
        `${res.what}: the schema admits ${t.name} but the server refused it: ${String(res.error['message'])}`
      )
    }
  }
  const bad = invalidText(itemSchema)
  if (!bad) return
  for (const text of fc.sample(bad, { seed, numRuns: INVALID_RUNS })) {
    const value = t.where === 'body' && itemSchema !== t.schema ? [text] : text
    // a body field of another type than string is refused by its type; its text is drawn from the schema
    const res = await send(o, withValue(base, t, value, text))
    const refused = res.status === 400 && named(res.error) === t.name
    const noResource = t.where === 'path' && res.status === 404
    if (!refused && !noResource) {
      problems.push(
        `${res.what}: the schema refuses ${t.name}=${JSON.stringify(text)} but the server answered ${res.status} ${JSON.stringify(res.error).slice(0, 160)}`
      )
    }
  }
}

describe('the document says what each parameter accepts', () => {
  it('admits what the server accepts and refuses what it refuses, per parameter', async () => {
    process.stdout.write(`openapi params: seed ${SEED} (rerun with PARAMS_SEED=${SEED})\n`)
    let i = 0
    for (const o of operations(doc)) {
      if (SKIPPED.has(o.id) || o.rawBody) continue
      for (const t of targets(o)) await checkTarget(o, t, SEED + i++)
    }
    const counts = [...seen].sort().map(([s, n]) => `${s}: ${n}`)
    process.stdout.write(
      `openapi params: ${[...seen.values()].reduce((a, b) => a + b, 0)} requests (${counts.join(', ')})\n`
    )
    process.stdout.write(`openapi params: prose rules that refused valid values: ${[...used].join(', ') || 'none'}\n`)
    if (process.env['PARAMS_PROBLEMS']) process.stdout.write(`${problems.join('\n')}\n`)
    expect(problems.slice(0, 30), `seed ${SEED}; ${problems.length} problem(s)`).toEqual([])
  }, 300_000)
})
