/**
 * JSON-RPC proxies in front of a test node that refuse what some production nodes refuse, or answer late or
 * differently; everything else (batches included) is forwarded as is. `startRpcProxy` takes the rule: it
 * answers a request itself (an error object, or a result) or returns undefined to forward it, at once or
 * through a promise (a delay).
 * - `startOverrideRefusingProxy`: `eth_call` with a state override (third parameter) answers -32602, as
 *   nodes started without override support do, and `eth_simulateV1` answers -32601 (method not found).
 * - `rangeLimitProxy` (test/fixtures/evm/whales/range-limit-proxy.ts): eth_getLogs over too many blocks.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RpcRequest {
  readonly id: unknown
  readonly method: string
  readonly params?: unknown[]
}

/** The proxy's own answer to `r`, or undefined to forward it to the node (either may come later: a promise). */
export type RpcRule = (r: RpcRequest) => unknown

export interface RpcProxy {
  readonly url: string
  /** requests the rule answered itself */
  refused: number
  close(): Promise<void>
}

export async function startRpcProxy(target: string, rule: RpcRule): Promise<RpcProxy> {
  const state = { refused: 0 }
  const forward = async (body: unknown): Promise<unknown> => {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    return res.json()
  }
  const one = async (r: RpcRequest): Promise<unknown> => {
    const own: unknown = await rule(r)
    if (own === undefined) return forward(r)
    state.refused++
    return own
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      void (async () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString()) as RpcRequest | RpcRequest[]
        const out = Array.isArray(parsed) ? await Promise.all(parsed.map(one)) : await one(parsed)
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(out))
      })().catch((err: unknown) => {
        res.writeHead(502)
        res.end(String(err))
      })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return state.refused
    },
    set refused(v: number) {
      state.refused = v
    },
    close: () => new Promise<void>((r) => server.close(() => r()))
  }
}

export function startOverrideRefusingProxy(target: string): Promise<RpcProxy> {
  return startRpcProxy(target, (r) =>
    r.method === 'eth_simulateV1'
      ? { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'the method eth_simulateV1 does not exist' } }
      : r.method === 'eth_call' && (r.params?.length ?? 0) >= 3 && r.params![2] !== null
        ? {
            jsonrpc: '2.0',
            id: r.id,
            error: { code: -32602, message: 'invalid argument 2: state overrides are not supported' }
          }
        : undefined
  )
}
