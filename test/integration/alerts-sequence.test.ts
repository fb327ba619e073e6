/**
 * Sequence checks of inbound alerts over a real socket (docs/alerts.md "Sequence checks" and "TradingView
 * template fields"): numeric `seq` gaps counted missing, a `seq` not above the last counted out of order, a
 * `{{timenow}}` far behind the arrival counted late, the counts per strategy in GET /v1/alerts/strategies and
 * summed in GET /v1/alerts/settings, stored in `alert_strategies` (a fresh reader of the store sees them); the
 * template fields (`ticker`, `exchange`, `interval`, `action`, `message`) mapped, and contradictions refused
 * naming both fields; and a strategy that goes silent for the key's `silence_bars` bars delivered as a signed
 * `alert.silent` event to the key's HTTPS webhook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StrategyStatuses } from '../../engine/alerts/strategy-status.js'
import { ingestRecords, jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { trustInProcess } from '../helpers/trust-in-process.js'
import { until } from '../helpers/until.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'

const HOUR = 3_600_000
const HOOK_SECRET = 'alert-silence-webhook-secret-0123'
/** bound on every wait: the 2-core machine may be busy */
const WAIT_MS = 30_000

let srv: Awaited<ReturnType<typeof startTestServer>>
let ca: TestCa
let untrust: () => void
let receiver: WebhookReceiver
let hookUrl: string
let key: { id: string; key: string }
let secret: string

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${srv.base}${path}`, {
    method,
    headers: path.startsWith('/v1/admin') ? { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } : { 'x-api-key': key.key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: await jsonBody(res) }
}

/** POSTs an alert as TradingView does (text/plain); `fields` are added to the secret. */
async function alert(fields: Record<string, unknown>) {
  const res = await fetch(`${srv.base}/v1/tradingview/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: JSON.stringify({ secret, ...fields })
  })
  return { status: res.status, body: await jsonBody(res) }
}

const strategies = async () => (await api('GET', '/v1/alerts/strategies')).body.strategies as Record<string, unknown>[]

beforeAll(async () => {
  ca = makeTestCa()
  untrust = trustInProcess(ca.ca)
  receiver = new WebhookReceiver(ca, HOOK_SECRET)
  hookUrl = await receiver.start()
  srv = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '5000' })
  const now = Date.now()
  for (const [symbol, base, price] of [
    ['BTCUSDT', 'BTC', 64_000],
    ['ETHUSDT', 'ETH', 3_000]
  ] as const) {
    const m = { exchange: 'binance', symbol, base }
    await ingestRecords(srv.base, 'funding', [{ ...m, ts: now - 60_000, funding_rate: 0.0001, interval_hours: 8 }])
    await ingestRecords(srv.base, 'trade', [
      { ...m, ts: now - 60_000, market: 'perp', quote: 'USDT', side: 'buy', price, qty: 1, trade_id: '1' }
    ])
  }
  key = (await api('POST', '/v1/admin/keys', { plan: 'pro', name: 'alerts-sequence' })).body
  secret = (await api('POST', '/v1/alerts/secret')).body.secret
}, 60_000)

afterAll(async () => {
  await srv?.stop()
  if (receiver?.port) await receiver.stop()
  untrust?.()
  ca?.cleanup()
})

describe('alert sequence checks', () => {
  it('counts numeric seq gaps as missing and a seq not above the last as out of order', async () => {
    const sent = { symbol: 'BINANCE:BTCUSDT.P', direction: 'long', strategy: 'grid', timeframe: '15' }
    const answers = []
    for (const seq of [1, 2, 5, 4, '6']) answers.push(await alert({ ...sent, seq }))
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200)
    expect(answers.map((a) => a.body.sequence)).toEqual([
      { missing: 0, late: false, out_of_order: false },
      { missing: 0, late: false, out_of_order: false },
      { missing: 2, late: false, out_of_order: false },
      { missing: 0, late: false, out_of_order: true },
      { missing: 0, late: false, out_of_order: false }
    ])
    expect(answers[2]!.body.alert).toMatchObject({ seq: 5, strategy: 'grid', timeframe: '15' })
    // the same alert with another seq is another alert, not a duplicate
    expect(answers.every((a) => a.body.duplicate === false)).toBe(true)
    const grid = (await strategies()).find((s) => s['strategy'] === 'grid')
    expect(grid).toMatchObject({
      symbol: 'BTC',
      timeframe: '15',
      received: 5,
      missing: 2,
      late: 0,
      out_of_order: 1,
      last_seq: 6,
      silent: false
    })
  })

  it('counts an alert whose {{timenow}} or bar is more than a bar behind its arrival as late', async () => {
    const threeHoursAgo = new Date(Date.now() - 3 * HOUR).toISOString()
    const late = await alert({
      symbol: 'ETH',
      direction: 'short',
      strategy: 'slow',
      timeframe: '1',
      seq: threeHoursAgo
    })
    expect(late.status, JSON.stringify(late.body)).toBe(200)
    expect(late.body.sequence).toEqual({ missing: 0, late: true, out_of_order: false })
    expect(late.body.alert.seq).toBe(new Date(threeHoursAgo).toISOString())
    // an earlier {{timenow}} afterwards is out of order; a bar that closed just now is on time
    const earlier = new Date(Date.now() - 4 * HOUR).toISOString()
    expect(
      (await alert({ symbol: 'ETH', direction: 'short', strategy: 'slow', timeframe: '60', seq: earlier })).body
        .sequence
    ).toMatchObject({ out_of_order: true })
    const barOpen = Date.now() - HOUR
    const onTime = await alert({ symbol: 'ETH', direction: 'short', strategy: 'bars', timeframe: '60', time: barOpen })
    expect(onTime.body.sequence).toEqual({ missing: 0, late: false, out_of_order: false })
    const slow = (await strategies()).find((s) => s['strategy'] === 'slow')
    expect(slow).toMatchObject({ symbol: 'ETH', received: 2, late: 2, out_of_order: 1 })
    const settings = await api('GET', '/v1/alerts/settings')
    expect(settings.body.sequence).toMatchObject({ strategies: 3, received: 8, missing: 2, late: 2, out_of_order: 2 })
  })

  it('maps TradingView template fields and refuses ones that contradict, naming both', async () => {
    const mapped = await alert({
      exchange: 'BINANCE',
      ticker: 'ETHUSDT.P',
      action: 'buy',
      interval: '60',
      message: 'breakout {{close}}',
      strategy: 'template',
      seq: 1
    })
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(200)
    expect(mapped.body).toMatchObject({ symbol: 'ETH', direction: 'long' })
    expect(mapped.body.alert).toMatchObject({ symbol: 'BINANCE:ETHUSDT.P', timeframe: '60' })
    // agreeing pairs are accepted
    const agreeing = await alert({
      symbol: 'ETH',
      ticker: 'ETHUSDT',
      direction: 'long',
      action: 'buy',
      seq: 2,
      strategy: 'template'
    })
    expect(agreeing.status, JSON.stringify(agreeing.body)).toBe(200)
    for (const [fields, param, names] of [
      [{ symbol: 'BTC', ticker: 'ETHUSDT', direction: 'long' }, 'ticker', ['ETHUSDT', 'BTC']],
      [{ symbol: 'BTC', direction: 'long', action: 'sell' }, 'action', ['sell', 'long']],
      [{ symbol: 'BTC', direction: 'long', timeframe: '15', interval: '60' }, 'interval', ['60', '15']],
      [{ symbol: 'BTC', direction: 'long', seq: 'soon' }, 'seq', ['number', 'ISO 8601']],
      [{ symbol: 'BTC', direction: 'long', seq: -1 }, 'seq', ['number']],
      [{ symbol: 'BTC', direction: 'long', time: 'yesterday' }, 'time', ['ISO 8601']],
      [{ symbol: 'BTC', direction: 'long', tickr: 'BTCUSDT' }, 'tickr', ['is not an alert field']]
    ] as const) {
      const res = await alert(fields)
      expect(res.status, JSON.stringify(fields)).toBe(400)
      expect(res.body.error.param, JSON.stringify(fields)).toBe(param)
      for (const n of names) expect(res.body.error.message, JSON.stringify(fields)).toContain(n)
    }
  })

  it('stores the counts: a reader of the store loads what the server answers', async () => {
    const answered = await strategies()
    await until(
      'the sequence counts written',
      async () => {
        const fresh = new StrategyStatuses(srv.running.ctx.store)
        await fresh.load()
        const stored = fresh.list(key.id)
        return (
          stored.length === answered.length &&
          stored.every((s, i) => s.received === answered[i]!['received'] && s.missing === answered[i]!['missing'])
        )
      },
      WAIT_MS
    )
  })

  it('delivers alert.silent, signed, when a strategy sends nothing for silence_bars bars; the next alert ends it', async () => {
    const hook = await api('POST', '/v1/webhooks', {
      url: hookUrl,
      events: ['alert.silent'],
      symbols: ['BTC'],
      secret: HOOK_SECRET
    })
    expect(hook.status, JSON.stringify(hook.body)).toBe(201)
    for (const bad of [{ silence_bars: -1 }, { silence_bars: 1_001 }, { silence_bars: 1.5 }, { silence: 2 }]) {
      expect((await api('PUT', '/v1/alerts/settings', bad)).status, JSON.stringify(bad)).toBe(400)
    }
    const set = await api('PUT', '/v1/alerts/settings', { silence_bars: 2 })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    expect(set.body).toMatchObject({ silence_bars: 2, forward: false })
    // one-second bars: silent once its last alert is more than two seconds old
    const first = await alert({ symbol: 'BTC', direction: 'long', strategy: 'quiet', timeframe: '1S', seq: 1 })
    expect(first.status).toBe(200)
    await until('the alert.silent delivery', () => receiver.received.length > 0, WAIT_MS)
    const got = receiver.received[0]!
    expect(got.serviceSignatureOk).toBe(true)
    expect(got.standardOk).toBe(true)
    expect(got.headers['x-service-event']).toBe('alert.silent')
    const body = JSON.parse(got.body.toString('utf8'))
    expect(body).toMatchObject({
      event: 'alert.silent',
      symbol: 'BTC',
      strategy: 'quiet',
      timeframe: '1S',
      last_alert_at: first.body.received_at,
      silence_bars: 2,
      webhook_id: hook.body.webhook_id
    })
    // only the BTC strategy with a one-second timeframe went silent (the others' bars are 15 minutes or longer)
    expect(receiver.received.every((r) => JSON.parse(r.body.toString('utf8')).strategy === 'quiet')).toBe(true)
    const quiet = (await strategies()).find((s) => s['strategy'] === 'quiet')
    expect(quiet).toMatchObject({ silent: true, silences: 1 })
    expect((await api('GET', '/v1/alerts/settings')).body.sequence.silent).toBeGreaterThanOrEqual(1)
    // with the check off (0), the next alert ends the silence and none follows
    expect((await api('PUT', '/v1/alerts/settings', { silence_bars: 0 })).body.silence_bars).toBe(0)
    const delivered = receiver.received.length
    await alert({ symbol: 'BTC', direction: 'long', strategy: 'quiet', timeframe: '1S', seq: 2 })
    const back = (await strategies()).find((s) => s['strategy'] === 'quiet')
    expect(back).toMatchObject({ received: 2, silent: false, silent_since: null })
    expect(back!['silences']).toBe(delivered)
  })
})
