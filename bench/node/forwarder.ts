/**
 * @module
 * The structural floor of the honeypot API for the node benchmark (bench/node/node.ts): the smallest HTTP
 * server that does what the API must do per check, and nothing else. A uWebSockets.js app answers every
 * GET by sending one fixed request (the bare side's: the wallet simulation's eth_simulateV1) to the node and
 * returning a short JSON. Over http(s) the fixed body goes through the lean client (engine/chain/raw-rpc.ts),
 * over ws(s) the same request goes through the WebSocket client (engine/chain/ws-rpc.ts). No key, route,
 * cache, decoding or report: the API minus this floor is the Tidewatch server's own cost; this floor minus
 * the bare call is the cost of the extra HTTP hop itself on this machine.
 *
 * The answer carries two monotonic timestamps (`process.hrtime.bigint()`, ns, the clock every process of
 * the machine shares): `t_in` when the GET reached the handler, `t_out` when the answer was handed to the
 * socket; with the client's own stamps they split each call into the request's way in, the node's leg and
 * the answer's way out (bench/node/phases.ts).
 *
 * Run as a child process: `node forwarder.js <node url> <port> <body file>`; it sends `ready` over IPC.
 */
import fs from 'node:fs'
import uWS from 'uWebSockets.js'
import { RawRpc } from '../../engine/chain/raw-rpc.js'
import { WsRpc } from '../../engine/chain/ws-rpc.js'

const [nodeUrl, port, bodyFile] = process.argv.slice(2)
const body = fs.readFileSync(bodyFile!)

/** one request to the node, its parsed answer ({ result } or { error }) */
function nodeClient(url: string): () => Promise<unknown> {
  if (url.startsWith('http')) {
    const rpc = new RawRpc(url, 5_000)
    return () => rpc.post(body)
  }
  const ws = new WsRpc(url, 5_000)
  const { method, params } = JSON.parse(body.toString('utf8')) as { method: string; params: unknown[] }
  return () => ws.call(method, params).then((result) => ({ result }))
}
const send = nodeClient(nodeUrl!)

uWS
  .App()
  .get('/*', (res) => {
    const tIn = process.hrtime.bigint()
    let aborted = false
    res.onAborted(() => (aborted = true))
    send().then(
      (answer) => {
        const result = (answer as { result?: unknown }).result
        // a probe's eth_call answers 0x-data, a simulation an array of blocks
        const ok = (typeof result === 'string' && result.length > 2) || (Array.isArray(result) && result.length > 0)
        if (aborted) return
        const text = JSON.stringify({ ok, t_in: String(tIn), t_out: String(process.hrtime.bigint()) })
        res.cork(() => res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(text))
      },
      () => {
        if (!aborted) res.cork(() => res.writeStatus('503 Service Unavailable').end())
      }
    )
  })
  .listen('127.0.0.1', Number(port), (socket) => {
    if (!socket) process.exit(1)
    process.send?.('ready')
  })
