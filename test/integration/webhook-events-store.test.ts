/**
 * Webhook events stored once per event (schemas/026_webhook_events.sql) over a real chDB store: an event
 * that fans out to two webhooks is one `webhook_events` row with its payload's text, its delivery rows carry
 * none; a restart with those deliveries pending resumes them and sends the same body bytes as before it; a
 * delivery stored before the events table (its payload in its own row) is resumed with its bytes and gets
 * its event row written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { payloadBytes } from '../../engine/webhooks/payload.js'
import { WebhookService } from '../../engine/webhooks/service.js'
import type { DeliveryRequest, DeliveryResult, WebhookTransport } from '../../engine/webhooks/transport.js'
import { loadConfig } from '../../server/config.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { until } from '../helpers/until.js'

/** Answers every attempt with `status` and keeps each body's text. */
class RecordingTransport implements WebhookTransport {
  readonly bodies: string[] = []
  constructor(private readonly status: number) {}
  async send(req: DeliveryRequest): Promise<DeliveryResult> {
    this.bodies.push(Buffer.from(req.body).toString('utf8'))
    const ok = this.status >= 200 && this.status < 300
    return {
      status: this.status,
      error: ok ? null : `receiver answered ${this.status}`,
      durationMs: 1,
      excerpt: '',
      retryAfter: null
    }
  }
  async close(): Promise<void> {}
}

let store: ChdbStore
let root: { dir: string; cleanup: () => void }

beforeAll(async () => {
  root = tmpDir('tw-webhook-events-')
  store = new ChdbStore({ path: root.dir, poolSize: 2 })
  await migrate(store, {})
}, 60_000)

afterAll(async () => {
  await store.close()
  root.cleanup()
})

function open(transport: WebhookTransport): Promise<WebhookService> {
  const config = loadConfig({ DATA_DIR: root.dir, SOURCES: 'none' }).webhooks
  return WebhookService.open({ store, config, dataDir: root.dir, log: silentLogger(), transport: () => transport })
}

const WHALE = {
  symbol: 'USDC',
  chain: 'ethereum',
  amount: 1234567.891,
  note: 'é\t"q"\n\\',
  path: [1, { a: null }]
}

describe('webhook events stored once per event', () => {
  it('one event row per event, no payload in delivery rows; a restart resumes the pending deliveries with the same bytes', async () => {
    const failing = new RecordingTransport(503)
    const first = await open(failing)
    await first.resume()
    const a = await first.registry.create('k1', {
      url: 'https://a.example.com/hook',
      events: ['*'],
      symbols: ['*'],
      secret: 'events-store-secret-a-0123'
    })
    await first.registry.create('k1', {
      url: 'https://b.example.com/hook',
      events: ['*'],
      symbols: ['*'],
      secret: 'events-store-secret-b-0123'
    })
    const t0 = 1_800_000_000_123
    expect(await first.outbox.accept({ id: 'whale-1', type: 'whale.transfer', ts: t0, payload: WHALE })).toBe(2)
    for (const id of ['sig-1', 'sig-2'])
      first.outbox.onEvent({
        id,
        event: 'HIGH',
        ts: t0 + 1,
        symbol: 'BTC',
        direction: 'long',
        confidence: 'HIGH',
        composite: 0.61803,
        action: 'CONFIRM',
        source: 'engine'
      })
    // every delivery's first attempt answered 503: each waits for its retry
    await until('first attempts', () => failing.bodies.length === 6, 60_000)
    await first.stop(Date.now() + 5_000)
    expect(first.outbox.stats()).toMatchObject({ events: 3, deliveries: 6, delivered: 0 })

    const events = await store.query<{ event_id: string; event: string; payload: string }>(
      'SELECT event_id, event, payload FROM webhook_events ORDER BY event_id'
    )
    expect(events.map((e) => e.event_id)).toEqual(['sig-1', 'sig-2', 'whale-1'])
    expect(events[2]).toEqual({ event_id: 'whale-1', event: 'whale.transfer', payload: JSON.stringify(WHALE) })
    const rows = await store.query<{ n: number; with_payload: number }>(
      `SELECT count() AS n, countIf(payload != '') AS with_payload FROM webhook_deliveries FINAL WHERE state = 'pending'`
    )
    expect(rows[0]).toEqual({ n: 6, with_payload: 0 })

    // a delivery stored before the events table: its payload's text in its own row, no event row
    const legacy = { symbol: 'ETH', kind: 'legacy', value: 2.5 }
    await store.command(
      `INSERT INTO webhook_deliveries (delivery_id, webhook_id, key_id, event_id, event, event_ts, symbol, payload,
         trigger, state, attempts, round_start, next_attempt_at, last_status, last_error, created_at, updated_at, version)
       VALUES ({id:String}, {webhook:UInt64}, 'k1', 'legacy-1', 'whale.transfer', fromUnixTimestamp64Milli({ts:Int64}),
         'ETH', {payload:String}, 'event', 'pending', 0, 0, fromUnixTimestamp64Milli({now:Int64}), 0, '',
         fromUnixTimestamp64Milli({now:Int64}), fromUnixTimestamp64Milli({now:Int64}), 1)`,
      { id: 'msg_' + '1'.repeat(32), webhook: a.id, ts: t0, now: Date.now(), payload: JSON.stringify(legacy) }
    )

    const ok = new RecordingTransport(200)
    const second = await open(ok)
    expect(await second.resume()).toBe(7)
    await until('resumed deliveries', () => second.outbox.stats().delivered === 7, 60_000)
    await second.stop(Date.now() + 5_000)

    // the same bytes as before the restart (each delivery's body is fixed by its event and webhook)
    const resumed = ok.bodies.filter((b) => !b.includes('legacy'))
    expect(resumed).toHaveLength(6)
    expect([...new Set(resumed)].sort()).toEqual([...new Set(failing.bodies)].sort())
    expect(ok.bodies).toContain(
      payloadBytes({ event: 'whale.transfer', eventTs: t0, payload: WHALE, webhookId: a.id }).toString('utf8')
    )
    expect(ok.bodies).toContain(
      payloadBytes({ event: 'whale.transfer', eventTs: t0, payload: legacy, webhookId: a.id }).toString('utf8')
    )
    // the older delivery's event row was written at the resume, with its text
    const written = await store.query<{ payload: string }>(
      `SELECT payload FROM webhook_events WHERE event_id = 'legacy-1'`
    )
    expect(written.map((r) => r.payload)).toEqual([JSON.stringify(legacy)])
  }, 120_000)
})
