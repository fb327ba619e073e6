import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, jsonBody, ingestRecords } from '../helpers/server.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
const now = Date.now()
const MIN = 60_000

const post = (rows: object[]): Promise<void> => ingestRecords(srv.base, 'whale_transfer', rows)
const get = async (q: string) => jsonBody(await fetch(`${srv.base}/v1/whales/events?${q}`))

let n = 0
function transfer(p: Partial<Record<string, unknown>>): Record<string, unknown> {
  n++
  return {
    ts: now - 60 * MIN + n * 1000,
    chain: 'ethereum',
    tx_hash: `0x${n.toString(16).padStart(64, '0')}`,
    log_index: 0,
    block_number: 1000 + n,
    address: `0xw${n}`,
    counterparty: '0xexchange',
    event_type: 'transfer_in',
    token: 'USDT',
    amount: 1_000_000,
    usd_value: 1_000_000,
    ...p
  }
}

beforeAll(async () => {
  srv = await startTestServer({ PUBLIC_RATE_PER_MIN: '100000' })
  // a 3-leg route (one tx, one wallet), a 4-leg wash loop, and 40 plain events on two chains
  const route = [0, 1, 2].map((i) =>
    transfer({ tx_hash: '0xroute', log_index: i, address: '0xrouter', usd_value: 2_000_000 + i * 1000 })
  )
  const loop = [0, 1, 2, 3].map((i) =>
    transfer({
      address: '0xwash',
      ts: now - 30 * MIN + i * MIN,
      event_type: i % 2 ? 'transfer_in' : 'transfer_out',
      usd_value: 3_000_000 * (1 + i * 0.01)
    })
  )
  const plain = Array.from({ length: 40 }, (_, i) =>
    transfer({ chain: i % 2 ? 'bsc' : 'ethereum', usd_value: 600_000 + i * 10_000 })
  )
  await post([...route, ...loop, ...plain, transfer({ usd_value: 150_000 })])
})
afterAll(async () => {
  await srv.stop()
})

describe('GET /v1/whales/events', () => {
  it('collapses multi-hop legs and wash loops, counting raw rows in total and events in distinct', async () => {
    const body = await get('limit=200')
    expect(body.total).toBe(47) // every raw row >= $500k (the $150k one is below medium)
    expect(body.distinct).toBe(42)
    const route = body.events.find((e: { address: string }) => e.address === '0xrouter')
    expect(route).toMatchObject({
      repeat_count: 3,
      collapsed: 'multi_hop',
      usd_value: 2_002_000,
      significance: 'medium'
    })
    const loop = body.events.find((e: { address: string }) => e.address === '0xwash')
    expect(loop).toMatchObject({ repeat_count: 4, collapsed: 'wash_loop', significance: 'high' })
    for (const k of [
      'id',
      'ts',
      'chain',
      'address',
      'event_type',
      'token',
      'amount',
      'usd_value',
      'significance',
      'tx_hash',
      'repeat_count'
    ]) {
      expect(route, k).toHaveProperty(k)
    }
    const low = await get('significance=low&limit=200')
    expect(low.distinct).toBe(43)
  })

  it('filters by chain and type', async () => {
    const bsc = await get('chain=bsc&limit=200')
    expect(bsc.events.every((e: { chain: string }) => e.chain === 'bsc')).toBe(true)
    expect(bsc.distinct).toBe(20)
    const both = await get('chain=bsc,ethereum&limit=200')
    expect(both.distinct).toBe(42)
    const outs = await get('event_type=transfer_out&limit=200')
    expect(outs.events.every((e: { event_type: string }) => e.event_type === 'transfer_out')).toBe(true)
  })

  it('pages every event exactly once, newest first, even while new data arrives', async () => {
    const first = await get('limit=7&offset=0')
    const seen: string[] = first.events.map((e: { id: string; address: string }) => `${e.id}|${e.address}`)
    await post(Array.from({ length: 5 }, () => transfer({ ts: now - 1000, usd_value: 900_000 }))) // newer rows
    for (let offset = 7; offset < first.distinct; offset += 7) {
      const page = await get(`limit=7&offset=${offset}&snapshot=${first.snapshot}`)
      expect(page.distinct).toBe(first.distinct)
      seen.push(...page.events.map((e: { id: string; address: string }) => `${e.id}|${e.address}`))
    }
    expect(seen).toHaveLength(first.distinct)
    expect(new Set(seen).size).toBe(first.distinct)
    const all = (await get(`limit=200&snapshot=${first.snapshot}`)).events
    const ts = all.map((e: { ts: number }) => e.ts)
    expect(ts).toEqual([...ts].sort((a, b) => b - a))
    const fresh = await get('limit=200')
    expect(fresh.distinct).toBe(first.distinct + 5) // without the snapshot the new rows show
  })

  it('answers 400 for every limit of the spec', async () => {
    for (const q of [
      'hours=0',
      'hours=169',
      'limit=0',
      'limit=201',
      'offset=-1',
      'offset=10001',
      'chain=tron',
      'significance=huge',
      'event_type=mint',
      'snapshot=abc',
      'snapshot=999999-1'
    ]) {
      const res = await fetch(`${srv.base}/v1/whales/events?${q}`)
      expect(res.status, q).toBe(400)
      expect((await jsonBody(res)).error.code, q).toBe('invalid_parameter')
    }
  })
})

describe('GET /v1/whales/summary', () => {
  it('summarizes the last 24 h per chain', async () => {
    const body = await jsonBody(await fetch(`${srv.base}/v1/whales/summary`))
    expect(Object.keys(body.chain_counts).sort()).toEqual([
      'arbitrum',
      'avalanche',
      'base',
      'bsc',
      'ethereum',
      'optimism',
      'polygon',
      'solana'
    ])
    expect(body.chain_counts.bsc.event_count).toBe(20)
    expect(body.net_flows.bsc.direction).toBe('inflow')
    expect(body.net_flows.bsc.net).toBeCloseTo(body.net_flows.bsc.inflow - body.net_flows.bsc.outflow, 6)
    expect(body.top_movers[0]).toHaveProperty('volume_usd_24h')
    expect(body.top_movers[0]).toHaveProperty('event_count_24h')
    expect(body.active_wallets).toBeGreaterThan(40)
    expect(body.total_volume_24h).toBeGreaterThan(0)
  })
})

describe('restart', () => {
  it('rebuilds the whale state from the store with the same answers', async () => {
    const events = await get('limit=200')
    const summary = await jsonBody(await fetch(`${srv.base}/v1/whales/summary`))
    await srv.running.ctx.live.rebuild()
    const again = await get('limit=200')
    expect(again.distinct).toBe(events.distinct)
    expect(again.total).toBe(events.total)
    expect(again.events.map((e: { id: string }) => e.id)).toEqual(events.events.map((e: { id: string }) => e.id))
    const summary2 = await jsonBody(await fetch(`${srv.base}/v1/whales/summary`))
    expect({ ...summary2, as_of: null }).toEqual({ ...summary, as_of: null })
  })
})
