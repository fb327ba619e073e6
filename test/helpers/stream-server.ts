/**
 * The server of the push-stream tests (real WebSockets, uWS, chDB): a `trader` and an `enterprise` key, the
 * markets BTC (binance, okx) and ETH (binance) made by a trade each, trades built and posted, and a client
 * connected (welcome read) and subscribed (ack read). `useStreamServer` starts it before the file's tests
 * and stops it after; `srv`, `url` and the keys are set once it runs.
 */
import { afterAll, beforeAll, expect } from 'vitest'
import { ingestRecords, jsonBody, startTestServer, TEST_ADMIN_TOKEN } from './server.js'
import { StreamClient, type Frame } from './stream-client.js'
import type { TradeRecord } from '../../engine/records/types.js'

export let srv: Awaited<ReturnType<typeof startTestServer>>
export let url: string
export let traderKey: string
export let enterpriseKey: string
export const MIN = 60_000

export async function createKey(plan: string): Promise<string> {
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan })
  })
  expect(res.status).toBe(201)
  return (await jsonBody(res)).key
}

export let tradeId = 0
export function trade(ts: number, price: number, qty: number, exchange = 'binance', base = 'BTC'): TradeRecord {
  const symbol = exchange === 'okx' ? `${base}-USDT-SWAP` : `${base}USDT`
  return {
    kind: 'trade',
    ts,
    exchange,
    market: 'perp',
    symbol,
    base,
    quote: 'USDT',
    side: tradeId % 2 ? 'buy' : 'sell',
    price,
    qty,
    trade_id: String(++tradeId)
  }
}

export const post = (rows: readonly TradeRecord[]) =>
  ingestRecords(
    srv.base,
    'trade',
    rows.map(({ kind: _k, ...r }) => r)
  )

export async function connect(key = traderKey, query = ''): Promise<StreamClient> {
  const c = await StreamClient.connect(`${url}?key=${key}${query}`)
  await c.next((f) => f.type === 'welcome')
  return c
}

export async function subscribe(c: StreamClient, channels: unknown[], id = 1): Promise<Frame> {
  const from = c.frames.length
  c.send({ op: 'subscribe', id, channels })
  return c.next((f) => f.type === 'ack' && f.id === id, 10_000, from)
}

/** Starts the server before the file's tests, with the markets the channels subscribe to. */
export function useStreamServer(): void {
  beforeAll(async () => {
    srv = await startTestServer()
    url = `ws://127.0.0.1:${srv.running.port}/v1/stream`
    traderKey = await createKey('trader')
    enterpriseKey = await createKey('enterprise')
    const now = Date.now()
    // markets must exist before their channels can be subscribed
    await post([
      trade(now - 5 * MIN, 50_000, 1),
      trade(now - 5 * MIN, 50_010, 1, 'okx'),
      trade(now - 5 * MIN, 3_000, 2, 'binance', 'ETH')
    ])
  }, 60_000)

  afterAll(async () => {
    await srv?.stop()
  })
}
