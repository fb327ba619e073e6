/**
 * The honeypot check over the node's WebSocket (`BSC_WS_URL`): the wallet simulation and its head read go
 * over one persistent socket (engine/chain/ws-rpc.ts) instead of http, with the same answers.
 *
 * Real parts: anvil (chain id 56, http and WebSocket on one port) with the node-intelligence fixture tokens;
 * a WebSocket relay on 127.0.0.1 (the `ws` package) in front of anvil's socket that counts the methods it
 * carries, so the test sees the simulation take the socket; a port where nothing listens for a node whose
 * socket is down. The routes run in process over the real module and chain clients.
 */
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { RpcRequestError } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { isTransportError } from '../../engine/chain/rpc-errors.js'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { WsRpc } from '../../engine/chain/ws-rpc.js'
import { nodeIntelApp } from '../helpers/evm/nodeintel-app.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { deployNodeIntelFixtures, type NodeIntelFixtures } from '../helpers/evm/nodeintel-fixtures.js'
import { jsonOf, type RouteApp } from '../helpers/route-app.js'

let anvil: Anvil
let fx: NodeIntelFixtures
let relay: { url: string; methods: Map<string, number>; close(): Promise<void> }
let refusedWs: string
const apps: Record<'http' | 'ws' | 'wsDown', { app: RouteApp; key: string; clients: ChainClients }> = {} as never

/** a WebSocket relay to `target` counting the JSON-RPC methods sent through it */
async function startRelay(target: string): Promise<typeof relay> {
  const methods = new Map<string, number>()
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  server.on('connection', (inbound: WebSocket) => {
    const outbound = new WebSocket(target)
    const queued: Buffer[] = []
    outbound.on('open', () => queued.splice(0).forEach((m) => outbound.send(m)))
    outbound.on('message', (m: Buffer) => inbound.send(m.toString('utf8')))
    inbound.on('message', (m: Buffer) => {
      const method = (JSON.parse(m.toString('utf8')) as { method: string }).method
      methods.set(method, (methods.get(method) ?? 0) + 1)
      if (outbound.readyState === WebSocket.OPEN) outbound.send(m.toString('utf8'))
      else queued.push(m)
    })
    inbound.on('close', () => outbound.close())
  })
  await new Promise<void>((r) => server.once('listening', () => r()))
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    methods,
    close: () => {
      for (const c of server.clients) c.terminate()
      return new Promise<void>((r) => server.close(() => r()))
    }
  }
}

async function appWith(ws: string | undefined): Promise<{ app: RouteApp; key: string; clients: ChainClients }> {
  const env = {
    BSC_RPC_URL: anvil.url,
    ...(ws === undefined ? {} : { BSC_WS_URL: ws }),
    BSC_RPC_RATE: '10000',
    BSC_DEX_ROUTER: fx.uni.router,
    BSC_DEX_FACTORY: fx.uni.factory,
    NODEINTEL_NEW_PAIRS_POLL_MS: '0',
    NODEINTEL_RECHECK_POLL_MS: '0'
  }
  return nodeIntelApp(env)
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56 })
  fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
  relay = await startRelay(anvil.url.replace(/^http/, 'ws'))
  const spare = net.createServer()
  await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r))
  refusedWs = `ws://127.0.0.1:${(spare.address() as AddressInfo).port}`
  await new Promise((r) => spare.close(r)) // nothing listens there: connection refused
  apps.http = await appWith(undefined)
  apps.ws = await appWith(relay.url)
  apps.wsDown = await appWith(refusedWs)
})
afterAll(async () => {
  for (const a of Object.values(apps)) await a?.clients.close()
  await relay?.close()
  await anvil?.stop()
})

async function honeypot(via: keyof typeof apps, token: string): Promise<Record<string, unknown>> {
  const { app, key } = apps[via]
  const res = await app.request(`/v1/node/bsc/honeypot/${token}?fresh=1`, { key })
  const body = jsonOf(res) as Record<string, unknown>
  expect(res.status, JSON.stringify(body)).toBe(200)
  const { checked_at: _at, ...rest } = body
  return rest
}

describe('the honeypot check over the node’s WebSocket', () => {
  it('answers as over http, token by token, and the simulation goes over the socket', async () => {
    const t = fx.tokens
    for (const token of [t.clean, t.taxed, t.sellBlocked, t.sellTax99, t.maxSell]) {
      const overHttp = await honeypot('http', token)
      const overWs = await honeypot('ws', token)
      expect(overWs, token).toEqual(overHttp)
      expect(overWs['method']).toBe('simulate_v1_wallet')
    }
    // each token's first check is two simulations (the buy alone, then with its plan), all on the socket
    expect(relay.methods.get('eth_simulateV1')).toBeGreaterThanOrEqual(5)
    expect(relay.methods.get('eth_getBlockByNumber')).toBeGreaterThanOrEqual(1)
    expect(relay.methods.get('eth_chainId')).toBe(1) // asked once, before the socket's first use
  })

  it('a node whose socket is down still answers, over http, and says so in its last error', async () => {
    const overHttp = await honeypot('http', fx.tokens.taxed)
    const down = await honeypot('wsDown', fx.tokens.taxed)
    expect(down).toEqual(overHttp)
    const stats = apps.wsDown.clients.get('bsc')!.stats()
    expect(stats.last_error).toContain(refusedWs)
    expect(stats.errors).toBe(0)
  })

  it('a not-a-contract token answers 404 over the socket as over http', async () => {
    const { app, key } = apps.ws
    const res = await app.request(`/v1/node/bsc/honeypot/${fx.tokens.nonContract}?fresh=1`, { key })
    expect(res.status).toBe(404)
    expect((jsonOf(res) as { error: { code: string } }).error.code).toBe('not_a_contract')
  })
})

describe('the WebSocket JSON-RPC client', () => {
  it('matches concurrent answers by id; a JSON-RPC error is the node’s own answer', async () => {
    const rpc = new WsRpc(anvil.url.replace(/^http/, 'ws'), 5_000)
    try {
      const [id, block, err] = await Promise.all([
        rpc.call<string>('eth_chainId', []),
        rpc.call<{ number: string }>('eth_getBlockByNumber', ['0x0', false]),
        rpc.call('no_such_method', []).catch((e: unknown) => e)
      ])
      expect(id).toBe('0x38')
      expect(block.number).toBe('0x0')
      expect(err).toBeInstanceOf(RpcRequestError)
      expect(isTransportError(err)).toBe(false)
      // anvil answers an unknown method over its socket with -32602, over http with -32601
      expect((err as RpcRequestError).cause).toMatchObject({ code: expect.any(Number), message: expect.any(String) })
    } finally {
      await rpc.close()
    }
  })

  it('a refused connection is a transport error; the next call opens the socket again', async () => {
    const rpc = new WsRpc(refusedWs, 2_000)
    const err = await rpc.call('eth_chainId', []).catch((e: unknown) => e)
    expect(isTransportError(err)).toBe(true)
    const again = await rpc.call('eth_chainId', []).catch((e: unknown) => e)
    expect(isTransportError(again)).toBe(true)
    await rpc.close()
  })
})
