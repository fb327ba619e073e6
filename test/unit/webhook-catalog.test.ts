/**
 * What the webhook event catalog drives, without a server: the registration schema takes `*` only alone
 * (a oneOf the validator applies as the document states) and names only from the catalog; a concrete path
 * such as /v1/webhooks/test answers a wrong method with its own methods in `Allow`, not those of the
 * templated path beside it; matching reads the payload's symbol (none: only `*`); and a stored row from
 * before the payload column gives the body it always gave.
 */
import { describe, expect, it } from 'vitest'
import { WEBHOOK_EVENT_NAMES, WHALE_TRANSFER } from '../../catalog/webhook-events.js'
import { ApiError } from '../../engine/errors.js'
import { matches } from '../../engine/webhooks/matching.js'
import { findDelivery } from '../../engine/webhooks/outbox-queries.js'
import { payloadBytes } from '../../engine/webhooks/payload.js'
import type { Store } from '../../engine/store/store.js'
import type { Webhook } from '../../engine/webhooks/webhook.js'
import { Router } from '../../server/router.js'
import { parseJsonBody } from '../../server/validate.js'
import { WebhookCreateBody } from '../../schemas/api/webhooks.js'

const body = (over: Record<string, unknown>) =>
  Buffer.from(
    JSON.stringify({
      url: 'https://hooks.example.com/x',
      events: ['HIGH'],
      symbols: ['BTC'],
      secret: 'a-secret-of-16-chars',
      ...over
    })
  )

function refusal(over: Record<string, unknown>): { param: string | undefined; message: string } {
  try {
    parseJsonBody(WebhookCreateBody, body(over))
  } catch (err) {
    const e = err as ApiError
    return { param: e.param, message: e.message }
  }
  throw new Error('accepted')
}

describe('webhook event catalog', () => {
  it('the registration schema takes ["*"] or catalog names, "*" never beside others', () => {
    for (const events of [['*'], ['HIGH'], [...WEBHOOK_EVENT_NAMES], [WHALE_TRANSFER.name, WHALE_TRANSFER.name]])
      expect(parseJsonBody(WebhookCreateBody, body({ events }))['events']).toEqual(events)
    expect(parseJsonBody(WebhookCreateBody, body({ symbols: ['*'] }))['symbols']).toEqual(['*'])
    for (const [over, param, message] of [
      [{ events: ['*', 'HIGH'] }, 'events', /stands alone/],
      [{ events: ['HIGH', '*'] }, 'events', /stands alone/],
      [{ events: ['*', '*'] }, 'events', /stands alone/],
      [{ symbols: ['BTC', '*'] }, 'symbols', /stands alone/],
      [{ events: ['LOW'] }, 'events[0]', /whale\.transfer/],
      [{ events: ['HIGH', 'LOW'] }, 'events[1]', /HIGH, MEDIUM, VETO, SIGNAL, whale\.transfer/],
      [{ events: [] }, 'events', /at least 1/],
      [{ events: 'HIGH' }, 'events', /list/]
    ] as const) {
      const r = refusal(over)
      expect(r.param, JSON.stringify(over)).toBe(param)
      expect(r.message).toMatch(message)
    }
  })

  it('a concrete path answers a wrong method with its own methods only', () => {
    const route = (method: string, path: string) =>
      ({ method, path, access: 'none', summary: '', tags: [], handler: () => null }) as never
    const router = new Router([
      route('POST', '/v1/webhooks/test'),
      route('GET', '/v1/webhooks/:id'),
      route('PATCH', '/v1/webhooks/:id'),
      route('DELETE', '/v1/webhooks/:id')
    ])
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const m = router.match(method, '/v1/webhooks/test')
      expect(m).toBeInstanceOf(ApiError)
      expect((m as ApiError).headers).toEqual({ allow: 'POST' })
    }
    const other = router.match('PUT', '/v1/webhooks/7') as ApiError
    expect(other.headers).toEqual({ allow: 'GET, PATCH, DELETE' })
    expect(router.match('GET', '/v1/webhooks/7')).not.toBeInstanceOf(ApiError)
  })

  it('matches by type and the payload symbol; an event without a symbol only matches "*"', () => {
    const w = (events: string[], symbols: string[]): Webhook => ({
      id: 1,
      keyId: 'k',
      url: 'https://h.example.com/x',
      events,
      symbols,
      signingKey: '',
      state: 'active',
      stateReason: '',
      createdAt: 0,
      updatedAt: 0,
      failingSince: null
    })
    const whale = { type: 'whale.transfer', symbol: 'USDC' }
    expect(matches(w(['whale.transfer'], ['USDC']), whale)).toBe(true)
    expect(matches(w(['*'], ['*']), whale)).toBe(true)
    expect(matches(w(['HIGH'], ['*']), whale)).toBe(false)
    expect(matches(w(['whale.transfer'], ['ETH']), whale)).toBe(false)
    const noSymbol = { type: 'whale.transfer', symbol: '' }
    expect(matches(w(['whale.transfer'], ['*']), noSymbol)).toBe(true)
    expect(matches(w(['whale.transfer'], ['USDC']), noSymbol)).toBe(false)
  })

  it('a row stored before the payload column gives the body it always gave', async () => {
    const row = {
      delivery_id: 'msg_0123456789abcdef0123456789abcdef',
      webhook_id: 1,
      key_id: 'k',
      event_id: 'e1',
      event: 'HIGH',
      event_ms: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      symbol: 'BTC',
      payload: '',
      direction: 'long',
      confidence: 'HIGH',
      composite: 0.72,
      trigger: 'event',
      state: 'failed',
      attempts: 4,
      round_start: 0,
      next_ms: null,
      last_status: 500,
      last_error: '',
      created_ms: 0
    }
    const store = { query: async (sql: string) => (sql.includes('webhook_attempts') ? [] : [row]) } as unknown as Store
    const d = (await findDelivery(store, 1, row.delivery_id, 'https://h.example.com'))!
    expect(payloadBytes(d).toString()).toBe(
      '{"event":"HIGH","ts":"2026-01-02T03:04:05.678Z","symbol":"BTC","direction":"long","confidence":"HIGH","composite":0.72,"webhook_id":1}'
    )
    const stored = { ...row, payload: '{"symbol":"USDC","chain":"ethereum"}', event: 'whale.transfer', symbol: 'USDC' }
    const s2 = { query: async (sql: string) => (sql.includes('webhook_attempts') ? [] : [stored]) } as unknown as Store
    const d2 = (await findDelivery(s2, 1, row.delivery_id, ''))!
    expect(payloadBytes(d2).toString()).toBe(
      '{"event":"whale.transfer","ts":"2026-01-02T03:04:05.678Z","symbol":"USDC","chain":"ethereum","webhook_id":1}'
    )
  })
})
