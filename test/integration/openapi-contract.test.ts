/**
 * The OpenAPI document is the contract. Driven by the document the real server serves: for every
 * operation, requests generated from its documented parameter and body schemas (fast-check, seed printed)
 * are sent over a real socket, and
 * - valid requests never get a 5xx, and are accepted (2xx) unless a refusal the document states applies
 *   (a "Rule:" of the parameter named in the error, unknown_symbol for well-formed symbols without data,
 *   404 for unknown path resources, the plan's 403, 401 without credentials);
 * - invalid requests (a value off its schema, a missing, unknown or repeated parameter, a bad body) get a
 *   documented 4xx with the error envelope;
 * - every answer's status, content type, documented headers and JSON body validate against the document
 *   (Ajv, JSON Schema 2020-12, ajv-formats).
 * Public operations run with and without a key, keyed ones also without a key and with a free-plan key.
 * Not driven: valid requests to POST /v1/admin/import (an import would run; invalid ones are refused before
 * it starts) and GET /v1/stream (a WebSocket; its plain-HTTP 426 is checked once). Export files are checked
 * by status, content type and headers (the JSON array layout parsed). About 1,000 requests, ~10 s.
 * Rerun a failure with CONTRACT_SEED=<seed printed>.
 */
import net from 'node:net'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fc from 'fast-check'
import { startTestServer, TEST_ADMIN_TOKEN, ndjson } from '../helpers/server.js'
import { AnswerChecker, mediaType, operations, type Json, type Operation } from '../helpers/openapi-document.js'
import { invalidRequest, validRequest, type Request, type RequestSources } from '../helpers/openapi-requests.js'
import { useReceiverUrls, validValue } from '../helpers/openapi-arbitraries.js'
import { openapiSeedRows } from '../helpers/openapi-seed.js'

/** Fixed unless CONTRACT_SEED is set: a run draws the same requests (the server's clock still moves). */
const SEED = Number(process.env['CONTRACT_SEED'] ?? 21)
/**
 * The seed of one operation's k-th generated run: the run's seed plus a hash of the operation id, so adding
 * an operation to the document leaves every other operation's requests as they were.
 */
function seedOf(id: string, k: number): number {
  let h = 0
  for (let j = 0; j < id.length; j++) h = (Math.imul(h, 31) + id.charCodeAt(j)) | 0
  return SEED + (((h >>> 0) % 1_000_000) * 8 + k)
}
/** Generated requests per operation and caller: fixed counts keep the file within about a minute. */
const VALID_RUNS = 20
const INVALID_RUNS = 10
const OTHER_CALLER_RUNS = 3
/** Longest wait for one answer before it counts as none (every answer here takes milliseconds). */
const ANSWER_BOUND_MS = 15_000
/** Not driven with valid requests: an import would run (invalid ones are refused before it starts). */
const NO_VALID_RUNS = new Set(['POST /v1/admin/import'])
// Node intelligence: a valid chain needs a node, which this server has not (503 chain_not_configured);
// valid requests run against anvil in test/integration/node-intel-*.test.ts
for (const op of ['honeypot/{token}', 'token-risk/{token}', 'new-pairs'])
  NO_VALID_RUNS.add(`GET /v1/node/{chain}/${op}`)
// the watch list and the verdict history: test/integration/node-intel-recheck.test.ts
for (const op of ['POST watch', 'GET watch', 'DELETE watch/{token}', 'GET token-history/{token}']) {
  const [method, path] = op.split(' ')
  NO_VALID_RUNS.add(`${method} /v1/node/{chain}/${path}`)
}
/** A WebSocket: plain HTTP is checked once below (426), the protocol in test/integration/stream.test.ts. */
const SKIPPED = new Set(['GET /v1/stream'])

type Caller = 'none' | 'key' | 'free' | 'nokey' | 'admin' | 'noadmin'

let srv: Awaited<ReturnType<typeof startTestServer>>
/** Where webhook URLs point: a loopback socket that closes every connection (deliveries fail, nothing leaves) */
let sink: net.Server
let doc: Json
let checker: AnswerChecker
const keys: Record<'key' | 'free', string> = { key: '', free: '' }
/**
 * Ids answered by accepted POSTs (`id` and `*_id` fields), by field name and by the POST's path: later
 * requests name resources that exist (`DELETE /v1/admin/keys/{id}`, `POST /v1/webhooks/test` webhook_id).
 */
const createdIds = new Map<string, (string | number)[]>()

function recordIds(o: Operation, body: Json | null): void {
  if (o.method !== 'POST' || !body) return
  for (const [k, v] of Object.entries(body)) {
    if ((k === 'id' || k.endsWith('_id')) && (typeof v === 'string' || typeof v === 'number')) {
      for (const key of [k, `${o.path}#${k}`]) createdIds.set(key, [...(createdIds.get(key) ?? []), v])
    }
  }
}

/** Existing ids three times in four, when there are any. */
function existingOr<T>(ids: readonly (string | number)[] | undefined, any: fc.Arbitrary<T>): fc.Arbitrary<T> {
  if (!ids?.length) return any
  return fc.oneof({ arbitrary: fc.constantFrom(...(ids as T[])), weight: 3 }, { arbitrary: any, weight: 1 })
}
const problems: string[] = []
const statusCounts = new Map<string, number>()
let sent = 0

const now = Date.now()
const seedRows = (): Record<string, object[]> => openapiSeedRows(now)

// Requests

function headersFor(caller: Caller, body: boolean, raw: boolean): Record<string, string> {
  const h: Record<string, string> = {}
  if (caller === 'key' || caller === 'free') h['x-api-key'] = keys[caller]
  if (caller === 'admin') h['authorization'] = `Bearer ${TEST_ADMIN_TOKEN}`
  if (body) h['content-type'] = raw ? 'application/x-ndjson' : 'application/json'
  return h
}

async function send(
  o: Operation,
  caller: Caller,
  req: Request
): Promise<{ status: number; headers: Headers; text: string; what: string }> {
  const url = new URL(`${srv.base}${req.path}`)
  for (const [k, v] of req.query) url.searchParams.append(k, v)
  const what = `${o.id} [${caller}] ${url.pathname}${url.search}${req.body === undefined ? '' : ` body ${req.body.slice(0, 120)}`}`
  let res: Response
  let body: string
  try {
    res = await fetch(url, {
      method: o.method,
      headers: headersFor(caller, req.body !== undefined, o.rawBody),
      ...(req.body === undefined ? {} : { body: req.body }),
      // a bound, not a timing check: an answer that never comes is reported instead of stalling the file
      signal: AbortSignal.timeout(ANSWER_BOUND_MS)
    })
    const binary = o.id === 'GET /v1/backtest/export' && !mediaType(res.headers.get('content-type')).includes('json')
    body = binary ? Buffer.from(await res.arrayBuffer()).toString('latin1') : await res.text()
  } catch (err) {
    problems.push(`${what}: no complete answer (${(err as Error).message})`)
    return { status: 0, headers: new Headers(), text: '', what }
  }
  sent++
  const bucket = `${res.status}`
  statusCounts.set(bucket, (statusCounts.get(bucket) ?? 0) + 1)
  if (res.status >= 500) problems.push(`${what}: ${res.status} ${body.slice(0, 300)}`)
  return { status: res.status, headers: res.headers, text: body, what }
}

const INGEST_KINDS = Object.keys(seedRows())

/**
 * Path values, id fields and raw bodies: ids of resources this test created (or any text: 404); ingest
 * names a record kind with a valid NDJSON body of it, or any text (400 invalid_record).
 */
const SOURCES: RequestSources = {
  pathParam: (o, p) => {
    if (o.id.startsWith('POST /v1/admin/ingest/')) return fc.constantFrom(...INGEST_KINDS)
    // `{id}` under a collection names what a POST to it created; `{x_id}` what any POST answered as x_id
    const collection = o.path.slice(0, o.path.indexOf(`/{${p.name}}`))
    const ids =
      p.name === 'id'
        ? [...createdIds].filter(([k]) => k.startsWith(`${collection}#`)).flatMap(([, v]) => v)
        : createdIds.get(p.name)
    return ids?.length ? existingOr(ids, fc.string({ minLength: 1 })).map(String) : undefined
  },
  bodyField: (_, name, schema) => {
    const ids = name.endsWith('_id') ? createdIds.get(name) : undefined
    return ids?.length ? existingOr(ids, validValue(schema)) : undefined
  },
  rawBody: (params) => {
    const rows = seedRows()[params['kind'] ?? '']
    const any = fc.string({ maxLength: 40 })
    return rows ? fc.oneof(fc.constant(ndjson(rows.slice(0, 2))), any) : any
  }
}

// Judging answers

/**
 * Whether a 4xx answer to a valid request is a refusal the document states: a 400 only for a rule stated
 * ("Rule:") on the parameter or body field it names, or unknown_symbol; 401 for a caller without
 * credentials, or on an operation that takes them in the body or path (no security scheme); 403 for the
 * free plan or where the parameter it names states its 403; another 4xx when the operation documents it (404 unknown resource, 409, 413, 429).
 */
function documentedRefusal(o: Operation, caller: Caller, status: number, body: Json | null): boolean {
  const error = (body?.['error'] ?? {}) as Json
  const code = error['code'] as string | undefined
  const param = o.params.find((p) => p.name === error['param'])
  // a body field named as `events` or `events[2]`
  const field = String(error['param'] ?? '').replace(/\[\d+\]$/, '')
  const bodyField = ((o.bodySchema?.['properties'] ?? {}) as Record<string, Json>)[field]
  const documented = (o.op['responses'] as Json)[String(status)] !== undefined
  if (status === 401) return caller === 'nokey' || caller === 'noadmin' || (o.access === 'none' && documented)
  // the free plan's feature and symbol checks, or a parameter whose rule states its 403 (a plan's history depth)
  if (status === 403) return caller === 'free' || (param !== undefined && String(param.description).includes('(403'))
  if (status !== 400) return documented
  if (o.rawBody) return code === 'invalid_record' || code === 'invalid_body' // NDJSON records, documented per line
  if (code === 'unknown_symbol') return param !== undefined || bodyField !== undefined
  if (code !== 'invalid_parameter') return false
  const stated = [param?.description, bodyField?.['description'], o.op['description']]
  return stated.some((d) => typeof d === 'string' && d.includes('Rule:'))
}

function callersOf(o: Operation): { caller: Caller; runs: number; main: boolean }[] {
  switch (o.access) {
    case 'none':
      return [{ caller: 'none', runs: VALID_RUNS, main: true }]
    case 'public':
      return [
        { caller: 'none', runs: VALID_RUNS, main: true },
        { caller: 'key', runs: VALID_RUNS, main: true }
      ]
    case 'key':
      return [
        { caller: 'key', runs: VALID_RUNS, main: true },
        { caller: 'nokey', runs: OTHER_CALLER_RUNS, main: false },
        { caller: 'free', runs: OTHER_CALLER_RUNS, main: false }
      ]
    case 'admin':
      return [
        { caller: 'admin', runs: VALID_RUNS, main: true },
        { caller: 'noadmin', runs: OTHER_CALLER_RUNS, main: false }
      ]
  }
}

/** Accepted answers, and the statuses of the refusals. */
interface Tally {
  accepted: number
  readonly refused: Set<number>
}

async function runValid(o: Operation, caller: Caller, runs: number, seed: number): Promise<Tally> {
  const tally: Tally = { accepted: 0, refused: new Set() }
  await fc.assert(
    fc.asyncProperty(validRequest(o, SOURCES), async (req) => {
      const res = await send(o, caller, req)
      if (res.status === 0) return
      const body = checker.check(o, res.what, res.status, res.headers, res.text)
      if (res.status >= 200 && res.status < 300) {
        tally.accepted++
        recordIds(o, body)
        return
      }
      tally.refused.add(res.status)
      if (res.status < 500 && !documentedRefusal(o, caller, res.status, body)) {
        problems.push(`${res.what}: a valid request was refused: ${res.status} ${res.text.slice(0, 300)}`)
      }
    }),
    { seed, numRuns: runs, endOnFailure: true }
  )
  return tally
}

async function runInvalid(o: Operation, caller: Caller, seed: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(invalidRequest(o, SOURCES), async ({ req, broken }) => {
      const res = await send(o, caller, req)
      if (res.status === 0) return
      const what = `${res.what} (broken: ${broken})`
      checker.check(o, what, res.status, res.headers, res.text)
      if (res.status < 400 || res.status >= 500) {
        problems.push(`${what}: an invalid request got ${res.status}, not a 4xx`)
        return
      }
      const body = JSON.parse(res.text) as Json
      if (typeof (body['error'] as Json | undefined)?.['code'] !== 'string') {
        problems.push(`${what}: no error envelope: ${res.text.slice(0, 200)}`)
      }
    }),
    { seed, numRuns: INVALID_RUNS, endOnFailure: true }
  )
}

beforeAll(async () => {
  sink = net.createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
  useReceiverUrls(fc.constant(`https://127.0.0.1:${(sink.address() as net.AddressInfo).port}/hook`))
  // webhook receivers on loopback are allowed past the SSRF guard for this run only
  srv = await startTestServer({ PUBLIC_RATE_PER_MIN: '100000', WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' })
  // pro: a limited plan, so answers carry the RateLimit headers; free: the plan's 403s
  keys.key = (await srv.running.ctx.keys.create('pro', 'contract')).key
  keys.free = (await srv.running.ctx.keys.create('free', 'contract-free')).key
  doc = (await (await fetch(`${srv.base}/v1/openapi.json`)).json()) as Json
  checker = new AnswerChecker(doc, problems)
}, 120_000)

afterAll(async () => {
  await srv?.stop()
  sink?.close()
})

describe('the OpenAPI document is the contract', () => {
  it('documents a license and every operation lints as JSON Schema 2020-12', () => {
    expect((doc['info'] as Json)['license']).toMatchObject({ name: expect.stringContaining('Proprietary') })
    for (const o of operations(doc)) {
      for (const p of o.params) checker.validator(`param ${o.id} ${p.name}`, p.schema)
      if (o.bodySchema) checker.validator(`request ${o.id}`, o.bodySchema)
    }
  })

  it('answers generated valid and invalid requests as documented', async () => {
    process.stdout.write(`openapi contract: seed ${SEED} (rerun with CONTRACT_SEED=${SEED})\n`)
    // the seed data goes in through the documented ingest operation, its answers checked like any other
    const ingest = operations(doc).find((o) => o.id === 'POST /v1/admin/ingest/{kind}')!
    for (const [kind, rows] of Object.entries(seedRows())) {
      const res = await send(ingest, 'admin', { path: `/v1/admin/ingest/${kind}`, query: [], body: ndjson(rows) })
      checker.check(ingest, res.what, res.status, res.headers, res.text)
      expect(res.status, `${kind}: ${res.text}`).toBe(201)
    }
    const tallies: Record<string, Tally> = {}
    for (const o of operations(doc)) {
      if (SKIPPED.has(o.id)) continue
      let i = 0
      for (const { caller, runs, main } of NO_VALID_RUNS.has(o.id) ? [] : callersOf(o)) {
        const tally = await runValid(o, caller, runs, seedOf(o.id, i++))
        if (main) tallies[`${o.id} [${caller}]`] = tally
      }
      const caller = o.access === 'admin' ? 'admin' : o.access === 'key' || o.access === 'public' ? 'key' : 'none'
      await runInvalid(o, caller, seedOf(o.id, i++))
    }
    // the WebSocket endpoint over plain HTTP: 426 with Upgrade, as documented
    const stream = operations(doc).find((o) => o.id === 'GET /v1/stream')!
    const plainStream = await send(stream, 'key', { path: '/v1/stream', query: [] })
    checker.check(stream, plainStream.what, plainStream.status, plainStream.headers, plainStream.text)
    expect(plainStream.status).toBe(426)
    // its documented query parameters too (426 over plain HTTP, not 400)
    const withQuery = await send(stream, 'key', { path: '/v1/stream', query: [['encoding', 'msgpack']] })
    checker.check(stream, withQuery.what, withQuery.status, withQuery.headers, withQuery.text)
    expect(withQuery.status).toBe(426)
    const counts = [...statusCounts].sort().map(([s, n]) => `${s}: ${n}`)
    process.stdout.write(`openapi contract: ${sent} requests (${counts.join(', ')})\n`)
    for (const [id, { accepted, refused }] of Object.entries(tallies)) {
      if (accepted > 0) continue
      // an operation on resources that must exist first, or credentials a body carries, may see only those
      // refusals; any other refusal of every request means the generated requests say nothing
      const only = [...refused].every((s) => s === 404 || s === 401)
      if (only) process.stdout.write(`openapi contract: ${id}: none accepted, refusals ${[...refused]} only\n`)
      else problems.push(`${id}: no generated valid request was accepted (seed ${SEED})`)
    }
    if (process.env['CONTRACT_PROBLEMS']) process.stdout.write(`${problems.join('\n')}\n`)
    expect(problems.slice(0, 40), `seed ${SEED}; ${problems.length} problem(s)`).toEqual([])
  }, 240_000)
})
