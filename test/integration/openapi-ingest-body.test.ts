/**
 * The admin ingest body is described in the OpenAPI document: one schema per record
 * kind for the lines of the NDJSON body, and a line the server accepts validates against its kind's schema.
 */
import { describe, it, expect } from 'vitest'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { jsonBody, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { sharedServer } from '../helpers/shared-server.js'
import { RECORD_KINDS } from '../../engine/records/fields.js'

describe('OpenAPI: the admin ingest body', () => {
  it('lists a line schema per record kind, and an accepted record validates against its own kind only', async () => {
    const srv = sharedServer()
    {
      const doc = await jsonBody(await fetch(`${srv.base}/v1/openapi.json`))
      const media = doc.paths['/v1/admin/ingest/{kind}'].post.requestBody.content['application/x-ndjson']
      const schemas = media['x-item-schema'].oneOf as { title?: string; properties: Record<string, unknown> }[]
      expect(schemas).toHaveLength(RECORD_KINDS.length)
      const ajv = new Ajv2020({ strict: false })
      const trade = {
        kind: 'trade',
        ts: Date.now(),
        exchange: 'binance',
        market: 'perp',
        symbol: 'OIBUSDT',
        base: 'OIB',
        quote: 'USDT',
        side: 'buy',
        price: 97000.5,
        qty: 0.01,
        trade_id: '1'
      }
      const passing = schemas.filter((s) => ajv.validate(s, trade))
      expect(passing).toHaveLength(1)
      expect(passing[0]!.properties).toHaveProperty('trade_id')
      const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: JSON.stringify(trade) + '\n'
      })
      expect(res.status).toBe(201)
    }
  })
})
