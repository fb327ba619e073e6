/**
 * ChainClient against real local HTTP servers on 127.0.0.1: one that answers JSON-RPC (batches too), one
 * that accepts and never answers, and a refused port. Failover in order, the per-node timeout, the rate
 * limit (waits, then refuses), chain id verification, and the node's own errors passing through.
 */
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainClient } from '../../engine/chain/chain-client.js'
import { isTransportError } from '../../engine/chain/rpc-errors.js'
import { ApiError } from '../../engine/errors.js'

interface RpcReq {
  id: number
  method: string
}

function rpcServer(chainId: number, calls: string[]): http.Server {
  return http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      const parsed = JSON.parse(body) as RpcReq | RpcReq[]
      const answer = (r: RpcReq): object => {
        calls.push(r.method)
        if (r.method === 'eth_chainId') return { jsonrpc: '2.0', id: r.id, result: `0x${chainId.toString(16)}` }
        if (r.method === 'eth_blockNumber') return { jsonrpc: '2.0', id: r.id, result: '0x2a' }
        return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `the method ${r.method} does not exist` } }
      }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)))
    })
  })
}

const listen = (s: net.Server): Promise<number> =>
  new Promise((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)))

let good: http.Server
let wrongChain: http.Server
let hanging: net.Server
let goodUrl: string
let wrongUrl: string
let hangUrl: string
let refusedUrl: string
const goodCalls: string[] = []
const held: net.Socket[] = []

beforeAll(async () => {
  good = rpcServer(56, goodCalls)
  wrongChain = rpcServer(1, [])
  hanging = net.createServer((s) => held.push(s)) // reads nothing, answers nothing
  goodUrl = `http://127.0.0.1:${await listen(good)}`
  wrongUrl = `http://127.0.0.1:${await listen(wrongChain)}`
  hangUrl = `http://127.0.0.1:${await listen(hanging)}`
  const spare = net.createServer()
  refusedUrl = `http://127.0.0.1:${await listen(spare)}`
  await new Promise((r) => spare.close(r)) // nothing listens there any more: connection refused
})

afterAll(async () => {
  for (const s of held) s.destroy()
  await Promise.all([good, wrongChain, hanging].map((s) => new Promise((r) => s.close(r))))
})

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(ApiError)
  return err as ApiError
}

describe('ChainClient', () => {
  it('answers from the first node', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: [goodUrl] })
    expect(await c.request('block', (p) => p.getBlockNumber())).toBe(42n)
    expect(c.stats()).toMatchObject({ calls: 1, errors: 0, failovers: 0 })
    expect(c.stats().latency_ms_p50).not.toBeNull()
  })

  it('fails over from a refused port to the next node, and tries the failed one last afterwards', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: [refusedUrl, goodUrl], timeoutMs: 2_000 })
    expect(await c.request('block', (p) => p.getBlockNumber())).toBe(42n)
    expect(c.stats().failovers).toBe(1)
    expect(c.stats().nodes[0]).toMatchObject({ up: false, failures: 1 })
    expect(await c.request('block', (p) => p.getBlockNumber())).toBe(42n)
    expect(c.stats().failovers).toBe(1) // the down node was not tried first again
  })

  it('gives up on a hanging node after its timeout and answers from the next', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: [hangUrl, goodUrl], timeoutMs: 300 })
    expect(await c.request('block', (p) => p.getBlockNumber())).toBe(42n)
    expect(c.stats()).toMatchObject({ failovers: 1, errors: 0 })
    expect(c.stats().last_error).toMatch(/127\.0\.0\.1/)
  })

  it('a hanging or refused node alone gives chain_unavailable naming the chain (never a hang)', async () => {
    const hang = new ChainClient({ chain: 'avalanche', urls: [hangUrl], timeoutMs: 300 })
    const e1 = await rejection(hang.request('block', (p) => p.getBlockNumber()))
    expect(e1.code).toBe('chain_unavailable')
    expect(e1.status).toBe(503)
    expect(e1.message).toMatch(/avalanche/)
    expect(e1.message).toMatch(/block/)
    const refused = new ChainClient({ chain: 'bsc', urls: [refusedUrl], timeoutMs: 2_000 })
    const e2 = await rejection(refused.request('block', (p) => p.getBlockNumber()))
    expect(e2.code).toBe('chain_unavailable')
    expect(e2.details).toMatchObject({ chain: 'bsc' })
    expect(refused.stats().errors).toBe(1)
  })

  it('passes the node’s own errors through (not a transport failure), counted apart', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: [goodUrl] })
    const err = await c
      .request('peers', (p) => p.request({ method: 'net_peerCount' } as never))
      .catch((e: unknown) => e)
    expect(err).not.toBeInstanceOf(ApiError)
    expect(isTransportError(err)).toBe(false)
    expect(c.stats()).toMatchObject({ rpc_errors: 1, errors: 0 })
  })

  it('rate-limits per chain: a burst beyond the rate waits, and a wait past the deadline is refused', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: [goodUrl], ratePerSec: 5 })
    const results = await Promise.all(Array.from({ length: 8 }, () => c.request('block', (p) => p.getBlockNumber())))
    expect(results.every((r) => r === 42n)).toBe(true)
    expect(c.stats().throttled).toBe(3) // burst 5, three waited for refill
    const tight = new ChainClient({ chain: 'bsc', urls: [goodUrl], ratePerSec: 1, timeoutMs: 200 })
    await tight.request('block', (p) => p.getBlockNumber())
    const err = await rejection(tight.request('block', (p) => p.getBlockNumber()))
    expect(err.code).toBe('chain_unavailable')
    expect(err.message).toMatch(/BSC_RPC_RATE=1/)
    expect(tight.stats().rate_refused).toBe(1)
  })

  it('verifyChainId accepts the right chain and names expected and actual otherwise', async () => {
    await new ChainClient({ chain: 'bsc', urls: [goodUrl] }).verifyChainId()
    const wrong = new ChainClient({ chain: 'bsc', urls: [goodUrl, wrongUrl], urlVariable: 'BSC_RPC_URL' })
    const err = await rejection(wrong.verifyChainId())
    expect(err.code).toBe('chain_mismatch')
    expect(err.message).toMatch(/chain id 1, expected 56/)
    expect(err.message).toMatch(/BSC_RPC_URL/)
    expect(wrong.chainIdOk(0)).toBe(true)
    expect(wrong.chainIdOk(1)).toBe(false)
    const down = await rejection(new ChainClient({ chain: 'bsc', urls: [refusedUrl] }).verifyChainId())
    expect(down.code).toBe('chain_unavailable')
  })

  it('checks a node that was down at verifyChainId before its first use, and never uses it on another chain', async () => {
    // node A is down while the chain id is verified; B answers for chain 56
    const spareA = net.createServer()
    const portA = await listen(spareA)
    await new Promise((r) => spareA.close(r))
    const bCalls: string[] = []
    const b = rpcServer(56, bCalls)
    const urlB = `http://127.0.0.1:${await listen(b)}`
    const c = new ChainClient({ chain: 'bsc', urls: [`http://127.0.0.1:${portA}`, urlB], timeoutMs: 2_000 })
    await c.verifyChainId()
    expect(c.chainIdOk(0)).toBeUndefined()
    expect(c.chainIdsOk()).toBe(true)
    // A comes back on chain 1, and B goes away: the failover reaches A, which must not answer for bsc
    const aCalls: string[] = []
    const a = rpcServer(1, aCalls)
    await new Promise<void>((r) => a.listen(portA, '127.0.0.1', () => r()))
    await new Promise((r) => b.close(r))
    try {
      const err = await rejection(c.request('eth_blockNumber', (x) => x.getBlockNumber({ cacheTime: 0 })))
      expect(err.code).toBe('chain_unavailable')
      expect(aCalls).toEqual(['eth_chainId']) // checked, never asked for the block number
      expect(c.chainIdOk(0)).toBe(false)
      expect(c.chainIdsOk()).toBe(false)
    } finally {
      await new Promise((r) => a.close(r))
    }
  })

  it('batches concurrent calls into one HTTP request per node', async () => {
    const c = new ChainClient({ chain: 'bsc', urls: [goodUrl] })
    const before = goodCalls.length
    const [a, b] = await c.request('two', (p) => Promise.all([p.getBlockNumber(), p.getChainId()]))
    expect([a, b]).toEqual([42n, 56])
    expect(goodCalls.slice(before).sort()).toEqual(['eth_blockNumber', 'eth_chainId'])
  })
})
