/**
 * Fuzzed requests on every route of the real app (in-process, real store): random query strings (known
 * and unknown names, hostile values), random keys and tokens, random bodies. Never a 5xx; every error is
 * the JSON envelope with a catalogued code. Seed: FUZZ_SEED (printed on failure by fast-check).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fc from 'fast-check'
import type { TObject } from '@sinclair/typebox'
import { ERROR_STATUS } from '../../engine/errors.js'
import type { HttpRequest, Route } from '../../server/http/types.js'
import { startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'

const SEED = Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31)
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1000)
let srv: Awaited<ReturnType<typeof startTestServer>>
let validKey = ''

beforeAll(async () => {
  srv = await startTestServer()
  validKey = (await srv.running.ctx.keys.create('free', 'fuzz')).key
})
afterAll(async () => {
  await srv.stop()
})

const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1e309',
    'NaN',
    'null',
    '[]',
    '{}',
    '%00',
    "'; DROP TABLE trades; --",
    'BTC,ETH,',
    ',,'
  ),
  fc.bigInt().map(String)
)

function queryFor(route: Route) {
  const names = Object.keys(((route.query as TObject | undefined)?.properties ?? {}) as object)
  const name = names.length
    ? fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 12 }))
    : fc.string({ maxLength: 12 })
  return fc.array(fc.tuple(name, hostile), { maxLength: 5 }).map((pairs) => {
    const q = new URLSearchParams()
    for (const [k, v] of pairs) q.append(k, v)
    return q
  })
}

const headers = fc.record(
  {
    'x-api-key': fc.oneof(fc.string(), fc.constant('VALID'), fc.constant(`tw_live_aaaaaaaaaa_${'A'.repeat(43)}`)),
    authorization: fc.oneof(fc.string(), fc.constant(`Bearer ${TEST_ADMIN_TOKEN}`), fc.constant('Bearer x')),
    'x-forwarded-for': fc.string()
  },
  { requiredKeys: [] }
)

const body = fc.oneof(
  fc.constant(null),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.json().map((j) => Buffer.from(j)),
  fc.array(fc.json(), { maxLength: 4 }).map((lines) => Buffer.from(lines.join('\n'))),
  fc
    .record({ plan: fc.oneof(fc.constantFrom('free', 'pro'), fc.string()), name: fc.string() }, { requiredKeys: [] })
    .map((o) => Buffer.from(JSON.stringify(o)))
)

describe('fuzzed requests', () => {
  it('never produce a 5xx and always answer errors with the envelope', async () => {
    const routes = srv.running.app.routes
    const seen = new Map<number, number>()
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, 'x')
      await fc.assert(
        fc.asyncProperty(
          queryFor(route),
          headers,
          body,
          fc.constantFrom(route.path.includes(':') ? 'trade' : ''),
          async (q, h, b, kind) => {
            const hdrs: Record<string, string> = {}
            for (const [k, v] of Object.entries(h)) hdrs[k] = v === 'VALID' ? validKey : v
            const req: HttpRequest = {
              method: route.method,
              path: kind ? path.replace(/x$/, kind) : path,
              query: q,
              headers: hdrs,
              body: route.maxBodyBytes ? b : null,
              ip: '127.0.0.1'
            }
            const res = await srv.running.app.handle(req)
            seen.set(res.status, (seen.get(res.status) ?? 0) + 1)
            expect(res.status, `${route.method} ${route.path}`).toBeLessThan(500)
            if (res.status >= 400) {
              const parsed = JSON.parse(String(res.body)) as { error: { code: string; message: string } }
              expect(Object.keys(ERROR_STATUS)).toContain(parsed.error.code)
              expect(typeof parsed.error.message).toBe('string')
              expect(ERROR_STATUS[parsed.error.code as keyof typeof ERROR_STATUS]).toBe(res.status)
            }
          }
        ),
        { numRuns: RUNS, seed: SEED }
      )
    }
    expect(routes.length).toBeGreaterThanOrEqual(7)
    // the inputs reach handlers, not only the gates: successes, validation errors and auth errors all occur
    for (const status of [200, 201, 400, 401, 404]) expect(seen.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0)
  }, 300_000)
})
