/**
 * A JSON-RPC proxy in front of a test node that refuses what some production nodes refuse: `eth_call` with
 * a state override (third parameter) answers -32602, as nodes started without override support do.
 * Everything else (batches included) is forwarded as is.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

interface RpcRequest {
  readonly id: unknown
  readonly method: string
  readonly params?: unknown[]
}

export interface RpcProxy {
  readonly url: string
  /** eth_call requests refused for their state override */
  refused: number
  close(): Promise<void>
}

export async function startOverrideRefusingProxy(target: string): Promise<RpcProxy> {
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
    if (r.method === 'eth_call' && (r.params?.length ?? 0) >= 3 && r.params![2] !== null) {
      state.refused++
      return {
        jsonrpc: '2.0',
        id: r.id,
        error: { code: -32602, message: 'invalid argument 2: state overrides are not supported' }
      }
    }
    return forward(r)
  }
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      const parsed = JSON.parse(text) as RpcRequest | RpcRequest[]
      const answer = Array.isArray(parsed) ? Promise.all(parsed.map(one)) : one(parsed)
      answer.then(
        (out) => {
          res.setHeader('content-type', 'application/json')
          res.end(JSON.stringify(out))
        },
        () => {
          res.statusCode = 502
          res.end()
        }
      )
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
