/**
 * The document's path parameters carry the schemas their routes check them with: a webhook id and a
 * delivery id by the patterns server/routes/webhooks.ts tests, a record kind by the record catalog, an alert
 * source by the configured sources. Only ids that are looked up as given (API keys, accounts) stay plain text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RECORD_KINDS } from '../../engine/records/fields.js'
import { DELIVERY_ID_PATTERN, WEBHOOK_ID_PATTERN } from '../../schemas/api/webhooks.js'
import { startTestServer } from '../helpers/server.js'
import { operations, type Json } from '../helpers/openapi-document.js'

/** Path parameters looked up as given: any text is a valid question, an unknown one answers 404. */
const LOOKED_UP = new Set([
  'DELETE /v1/admin/keys/{id} id',
  'DELETE /v1/account/keys/{id} id',
  'POST /v1/account/keys/{id}/alert-secret id',
  'PATCH /v1/account/accounts/{id} id'
])

let srv: Awaited<ReturnType<typeof startTestServer>>
let doc: Json

beforeAll(async () => {
  srv = await startTestServer({ ALERT_SOURCES: 'trendspider,mybot' })
  doc = (await (await fetch(`${srv.base}/v1/openapi.json`)).json()) as Json
})
afterAll(async () => {
  await srv?.stop()
})

describe('OpenAPI path parameters', () => {
  it('carry the schemas the routes check them with', () => {
    const params = new Map<string, Json>()
    for (const op of operations(doc)) {
      for (const p of op.params) if (p.in === 'path') params.set(`${op.id} ${p.name}`, p.schema as Json)
    }
    expect(params.get('GET /v1/webhooks/{id} id')).toMatchObject({ type: 'string', pattern: WEBHOOK_ID_PATTERN })
    expect(params.get('POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver delivery_id')).toMatchObject({
      pattern: DELIVERY_ID_PATTERN
    })
    expect(params.get('POST /v1/admin/ingest/{kind} kind')?.['enum']).toEqual([...RECORD_KINDS])
    expect(params.get('POST /v1/{alert_source}/webhook alert_source')?.['enum']).toEqual([
      'tradingview',
      'trendspider',
      'mybot'
    ])
    const plain = [...params].filter(([, s]) => s['pattern'] === undefined && s['enum'] === undefined)
    expect(plain.map(([k]) => k).sort()).toEqual([...LOOKED_UP].sort())
  })

  it('a value outside the schema names no resource: 404', async () => {
    const key = (await srv.running.ctx.keys.create('enterprise', 'paths')).key
    const h = { 'x-api-key': key }
    expect((await fetch(`${srv.base}/v1/webhooks/0`, { headers: h })).status).toBe(404)
    expect((await fetch(`${srv.base}/v1/webhooks/12a`, { headers: h })).status).toBe(404)
    const alert = await fetch(`${srv.base}/v1/other/webhook`, { method: 'POST', body: '{}' })
    expect(alert.status).toBe(404)
  })
})
