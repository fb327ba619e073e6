/**
 * `/v1/health` takes the capabilities' sections from their module descriptors (ServiceModule.health): the
 * sections are the modules', in the answer's fixed section order, over a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ModuleList } from '../../server/modules/service-module.js'
import { jsonBody, startTestServer } from '../helpers/server.js'

let srv: Awaited<ReturnType<typeof startTestServer>>

beforeAll(async () => {
  srv = await startTestServer()
})
afterAll(async () => {
  await srv.stop()
})

describe('/v1/health sections from the module descriptors', () => {
  it('serves every section in the documented order, the modules’ among them', async () => {
    const body = (await jsonBody(await fetch(`${srv.base}/v1/health`))) as Record<string, unknown>
    expect(Object.keys(body)).toEqual([
      'status',
      'version',
      'uptime_s',
      'ready',
      'waiting_for',
      'synthetic',
      'loops',
      'store',
      'sources',
      'process',
      'live',
      'last_stop',
      'accounts',
      'alerts',
      'webhooks',
      'stream',
      'signals',
      'exports',
      'bodies',
      'ingest'
    ])
    const sections = srv.running.ctx.healthSections!()
    expect(Object.keys(sections).sort()).toEqual(['accounts', 'alerts', 'signals', 'webhooks'])
    // each module section has the fields its own counters have
    for (const [name, part] of Object.entries(sections)) {
      expect(Object.keys(body[name] as object).sort(), name).toEqual(Object.keys(part as object).sort())
    }
    expect(body['webhooks']).toMatchObject({ pending: 0, in_flight: 0 })
    expect(body['accounts']).toHaveProperty('login_failures')
  })

  it('merges the modules’ sections in module order', () => {
    const modules = new ModuleList()
    modules.add({ name: 'a', health: () => ({ first: 1, shared: 'a' }) })
    modules.add({ name: 'no-health' })
    modules.add({ name: 'b', health: () => ({ second: 2, shared: 'b' }) })
    expect(modules.health()).toEqual({ first: 1, shared: 'b', second: 2 })
  })
})
