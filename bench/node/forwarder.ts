/**
 * @module
 * The structural floor of the honeypot API for the node benchmark (bench/node/node.ts): the smallest HTTP
 * server that does what the API must do per check, and nothing else. A uWebSockets.js app answers every
 * GET by POSTing one fixed body (the bytes the bare side sends: the wallet simulation's eth_simulateV1) to the node through the raw client
 * (engine/chain/raw-rpc.ts) and returning a short JSON. No key, route, cache, decoding or
 * report: the API minus this floor is the Tidewatch server's own cost; this floor minus the bare call is
 * the cost of the extra HTTP hop itself on this machine.
 *
 * Run as a child process: `node forwarder.js <node url> <port> <body file>`; it sends `ready` over IPC.
 */
import fs from 'node:fs'
import uWS from 'uWebSockets.js'
import { RawRpc } from '../../engine/chain/raw-rpc.js'

const [nodeUrl, port, bodyFile] = process.argv.slice(2)
const body = fs.readFileSync(bodyFile!)
const rpc = new RawRpc(nodeUrl!, 5_000)

uWS
  .App()
  .get('/*', (res) => {
    let aborted = false
    res.onAborted(() => (aborted = true))
    rpc.post(body).then(
      (answer) => {
        const result = (answer as { result?: unknown }).result
        // a probe's eth_call answers 0x-data, a simulation an array of blocks
        const ok = (typeof result === 'string' && result.length > 2) || (Array.isArray(result) && result.length > 0)
        const text = JSON.stringify({ ok })
        if (!aborted)
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
