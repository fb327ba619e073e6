/**
 * Demo data is labelled wherever it is served (docs/synthetic.md): with the demo market, every data answer
 * carries `x-tidewatch-synthetic: true` and a leading `synthetic: true` field, the stream's welcome and
 * snapshots say so, and the label outlives a restart without the demo source (the data is still demo
 * data). A service that never held demo data labels nothing.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, jsonBody, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { StreamClient } from '../helpers/stream-client.js'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { start } from '../../server/start.js'

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }

async function proKey(base: string): Promise<string> {
  const res = await fetch(`${base}/v1/admin/keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ plan: 'pro' })
  })
  expect(res.status).toBe(201)
  return ((await jsonBody(res)) as { key: string }).key
}

const DATA_PATHS = [
  '/v1/confirm?symbol=BTC&direction=long',
  '/v1/options/chain?currency=BTC',
  '/v1/derivatives/screener',
  '/v1/whales/summary',
  '/v1/historical/ohlcv?symbol=BTC&timeframe=1h&limit=5'
]

describe('a service holding demo data', () => {
  let srv: Awaited<ReturnType<typeof startTestServer>>
  let key: string
  beforeAll(async () => {
    srv = await startTestServer({ SOURCES: 'sim', SIM_BACKFILL_DAYS: '1' })
    key = await proKey(srv.base)
  })
  afterAll(async () => {
    await srv?.stop()
  })

  it('labels every JSON data answer with the header and a leading synthetic field', async () => {
    for (const p of DATA_PATHS) {
      const res = await fetch(`${srv.base}${p}`, { headers: { 'x-api-key': key } })
      const text = await res.text()
      expect(res.status, `${p}: ${text.slice(0, 200)}`).toBe(200)
      expect(res.headers.get('x-tidewatch-synthetic'), p).toBe('true')
      expect(text.startsWith('{"synthetic":true,'), p).toBe(true)
      expect(JSON.parse(text).synthetic).toBe(true)
    }
    // cached hot answers stay labelled on the second hit
    const again = await fetch(`${srv.base}${DATA_PATHS[0]}`, { headers: { 'x-api-key': key } })
    expect((await jsonBody(again)).synthetic).toBe(true)
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    expect(health.synthetic).toBe(true)
    // errors are not data: no label
    const bad = await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=up`, { headers: { 'x-api-key': key } })
    expect(bad.status).toBe(400)
    expect((await jsonBody(bad)).synthetic).toBeUndefined()
  })

  it('says synthetic in the stream welcome and snapshots', async () => {
    const c = await StreamClient.connect(`${srv.base.replace('http', 'ws')}/v1/stream`, { 'x-api-key': key })
    try {
      const welcome = await c.next((f) => f.type === 'welcome')
      expect(welcome.synthetic).toBe(true)
      c.send({ op: 'subscribe', channels: ['screener'] })
      const snap = await c.next((f) => f.type === 'snapshot')
      expect(snap.synthetic).toBe(true)
    } finally {
      c.ws.close()
    }
  })

  it('stays labelled after a restart without the demo source (the stored data is still demo data)', async () => {
    const dir = srv.dataDir
    await srv.running.stop()
    const again = await start(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dir,
        SOURCES: 'none',
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        CHDB_POOL_SIZE: '2'
      }),
      silentLogger()
    )
    try {
      await again.ready
      const res = await fetch(`http://127.0.0.1:${again.port}/v1/options/chain?currency=BTC`)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-tidewatch-synthetic')).toBe('true')
      expect((await jsonBody(res)).synthetic).toBe(true)
    } finally {
      await again.stop()
    }
  })
})

describe('a service that never held demo data', () => {
  it('labels nothing', async () => {
    const srv = await startTestServer({ SOURCES: 'none' })
    try {
      const key = await proKey(srv.base)
      const res = await fetch(`${srv.base}/v1/options/chain?currency=BTC`, { headers: { 'x-api-key': key } })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-tidewatch-synthetic')).toBeNull()
      expect((await jsonBody(res)).synthetic).toBeUndefined()
      expect((await jsonBody(await fetch(`${srv.base}/v1/health`))).synthetic).toBe(false)
    } finally {
      await srv.stop()
    }
  })
})
