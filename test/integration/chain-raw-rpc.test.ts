/**
 * The chain client's lean JSON-RPC client (engine/chain/raw-rpc.ts), which carries the wallet simulation: a
 * real anvil answers it, and test HTTP servers on 127.0.0.1 answer what failing nodes answer. Failures are
 * classified as viem's http transport classifies them, so the chain client fails over on the same ones: a
 * refused connection, a non-JSON body or an HTTP error status without a JSON-RPC error is a transport error
 * (viem HttpRequestError); a JSON-RPC error answer is the node's own (RpcRequestError carrying its error
 * object), whatever the HTTP status. A picker (`call`'s `pick`) reads a 2xx answer's text; what it does
 * not read (undefined) is parsed and handled as without one, and it is never given an error status's text.
 */
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { HttpRequestError, RpcRequestError } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainClient } from '../../engine/chain/chain-client.js'
import { isTransportError } from '../../engine/chain/rpc-errors.js'
import { RawRpc } from '../../engine/chain/raw-rpc.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'

let anvil: Anvil
const servers: http.Server[] = []
let refusedUrl: string

/** A node that answers every request with `status` and `body`. */
async function answering(status: number, body: string): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(body)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56 })
  const spare = net.createServer()
  await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r))
  refusedUrl = `http://127.0.0.1:${(spare.address() as AddressInfo).port}`
  await new Promise((r) => spare.close(r)) // nothing listens there: connection refused
})
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r))
  await anvil?.stop()
})

describe('lean JSON-RPC client', () => {
  it("a node's result, and its JSON-RPC error as RpcRequestError with the node's error object", async () => {
    const rpc = new RawRpc(anvil.url, 5_000)
    try {
      expect(await rpc.call('eth_chainId', [])).toBe('0x38')
      const err = await rpc.call('no_such_method', []).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(RpcRequestError)
      expect(isTransportError(err)).toBe(false)
      expect((err as RpcRequestError).cause).toMatchObject({ code: -32601 })
    } finally {
      await rpc.close()
    }
  })

  it('a JSON-RPC error under an HTTP error status is still the node answering', async () => {
    const url = await answering(500, '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}')
    const rpc = new RawRpc(url, 5_000)
    try {
      const err = await rpc.call('eth_call', []).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(RpcRequestError)
      expect((err as RpcRequestError).cause).toMatchObject({ code: 3, message: 'execution reverted' })
    } finally {
      await rpc.close()
    }
  })

  it("a picker's value for the text it reads; the parsed result or the node's error for the text it does not", async () => {
    const rpc = new RawRpc(anvil.url, 5_000)
    const seen: string[] = []
    const pick = (text: string): unknown => {
      seen.push(text)
      return text.includes('"result":"0x38"') ? { picked: true } : undefined
    }
    try {
      expect(await rpc.call('eth_chainId', [], pick)).toEqual({ picked: true })
      expect(seen).toEqual(['{"jsonrpc":"2.0","id":1,"result":"0x38"}'])
      expect(await rpc.call('eth_gasPrice', [], pick)).toMatch(/^0x[0-9a-f]+$/)
      const err = await rpc.call('no_such_method', [], pick).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(RpcRequestError)
    } finally {
      await rpc.close()
    }
    const failing = await answering(500, '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}')
    const other = new RawRpc(failing, 5_000)
    try {
      seen.length = 0
      expect(await other.call('eth_call', [], pick).catch((e: unknown) => e)).toBeInstanceOf(RpcRequestError)
      expect(seen).toEqual([])
    } finally {
      await other.close()
    }
  })

  it('refused, non-JSON and HTTP errors without a JSON-RPC error are transport errors', async () => {
    const urls = [refusedUrl, await answering(200, '<html>proxy</html>'), await answering(502, 'bad gateway')]
    for (const url of urls) {
      const rpc = new RawRpc(url, 5_000)
      try {
        const err = await rpc.call('eth_chainId', []).catch((e: unknown) => e)
        expect(err, url).toBeInstanceOf(HttpRequestError)
        expect(isTransportError(err)).toBe(true)
      } finally {
        await rpc.close()
      }
    }
  })

  it('the chain client fails over from a refusing node to the next for calls through the lean client', async () => {
    const client = new ChainClient({ chain: 'bsc', urls: [refusedUrl, anvil.url], timeoutMs: 5_000 })
    try {
      expect(await client.request('raw_chain_id', (_c, raw) => raw.call('eth_chainId', []))).toBe('0x38')
      expect(client.stats()).toMatchObject({ failovers: 1, errors: 0 })
    } finally {
      await client.close()
    }
  })
})
