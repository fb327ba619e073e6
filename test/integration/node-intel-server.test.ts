/**
 * Node intelligence in the running server (server/start.ts wiring) over a real socket: AVAX_RPC_URL names
 * an anvil node (chain id 43114); the chain id check runs at start, a honeypot check answers over HTTP,
 * and a pair created on the node is pushed on the stream channel `newpairs:avax` with its verdict and
 * listed by GET /v1/node/avax/new-pairs. BSC has no node: its routes answer 503 naming BSC_RPC_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseEther } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { deployNodeIntelFixtures, type NodeIntelFixtures } from '../helpers/evm/nodeintel-fixtures.js'
import { addLiquidityEth, deployContract } from '../helpers/evm/uniswap.js'
import { jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { StreamClient } from '../helpers/stream-client.js'

let anvil: Anvil
let fx: NodeIntelFixtures
let srv: Awaited<ReturnType<typeof startTestServer>>
let key: string
let traderKey: string

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 43114 })
  fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.avalanche.wrappedNative)
  srv = await startTestServer({
    AVAX_RPC_URL: anvil.url,
    AVAX_DEX_ROUTER: fx.uni.router,
    AVAX_DEX_FACTORY: fx.uni.factory,
    NODEINTEL_NEW_PAIRS_POLL_MS: '100'
  })
  const create = async (plan: string): Promise<string> => {
    const res = await fetch(`${srv.base}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan, name: `node-${plan}` })
    })
    return (await jsonBody(res)).key
  }
  key = await create('pro')
  traderKey = await create('trader')
})
afterAll(async () => {
  await srv?.stop()
  await anvil?.stop()
})

const get = async (path: string): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })
  return { status: res.status, body: await jsonBody(res) }
}

describe('node intelligence in the server', () => {
  it('answers a honeypot check over HTTP; bsc without a node answers 503 naming BSC_RPC_URL', async () => {
    const r = await get(`/v1/node/avax/honeypot/${fx.tokens.sellBlocked}`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ chain: 'avax', verdict: 'honeypot', method: 'simulate_v1_wallet' })
    const bsc = await get(`/v1/node/bsc/token-risk/${fx.tokens.clean}`)
    expect(bsc.status).toBe(503)
    expect(bsc.body.error).toMatchObject({ code: 'chain_not_configured' })
    expect(bsc.body.error.message).toMatch(/BSC_RPC_URL/)
    // parameters are checked before the node is needed: a malformed token is 400 even without a node
    expect((await get('/v1/node/bsc/honeypot/0x12')).status).toBe(400)
  })

  it('pushes a new pair on newpairs:avax with its verdict, and lists it newest first', async () => {
    const c = await StreamClient.connect(`ws://127.0.0.1:${srv.running.port}/v1/stream?key=${key}`)
    try {
      await c.next((f) => f.type === 'welcome')
      c.send({ op: 'subscribe', id: 1, channels: ['newpairs:avax'] })
      const ack = await c.next((f) => f.type === 'ack')
      expect(ack).toMatchObject({ channels: ['newpairs:avax'], errors: [] })
      await c.next((f) => f.type === 'snapshot' && f.channel === 'newpairs:avax')
      const plain = fx.compiled['PlainToken']!
      const token = await deployContract(fx.uni, plain.abi, plain.bytecode, ['Pushed', 'PSH', parseEther('1000000')])
      await addLiquidityEth(fx.uni, token, parseEther('1000'), parseEther('10'), { tokenAbi: plain.abi })
      const update = await c.next(
        (f) => f.type === 'update' && f.channel === 'newpairs:avax' && f.data.some((p: any) => p.token === token),
        20_000
      )
      expect(update.data.find((p: any) => p.token === token)).toMatchObject({
        chain: 'avax',
        verdict: 'ok',
        is_honeypot: false
      })
      const list = await get('/v1/node/avax/new-pairs?limit=1')
      expect(list.body.pairs[0]).toMatchObject({ token, verdict: 'ok' })
      const bad = await get('/v1/node/ethereum/new-pairs')
      expect(bad.status).toBe(400)
    } finally {
      c.close()
    }
  })

  it('a trader key (stream, no node intelligence) is refused newpairs: channels, naming the plan that has them', async () => {
    const c = await StreamClient.connect(`ws://127.0.0.1:${srv.running.port}/v1/stream?key=${traderKey}`)
    try {
      await c.next((f) => f.type === 'welcome')
      c.send({ op: 'subscribe', id: 1, channels: ['newpairs:avax'] })
      const ack = await c.next((f) => f.type === 'ack')
      expect(ack.channels).toEqual([])
      expect(ack.errors[0]).toMatchObject({ channel: 'newpairs:avax', code: 'forbidden' })
      expect(ack.errors[0].message).toMatch(/pro/)
    } finally {
      c.close()
    }
  })

  it('node health over HTTP', async () => {
    const r = await get('/v1/node/health')
    expect(r.status).toBe(200)
    const avax = r.body.chains.find((c: any) => c.chain === 'avax')
    expect(avax.nodes[0]).toMatchObject({ reachable: true, chain_id: 43114, chain_id_ok: true })
    expect(r.body.chains.find((c: any) => c.chain === 'bsc').status).toBe('not_configured')
  })
})
