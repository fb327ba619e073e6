/**
 * @module
 * The HTTP reference: a bare uWebSockets.js server answering every request with a static JSON body, either
 * padding of the given size or the content of a file. `node dist/bench/http/bare-uws.js <port> <bytes|file>`;
 * prints `ready` when listening.
 */
import fs from 'node:fs'
import uWS from 'uWebSockets.js'

const [portText, spec] = process.argv.slice(2)
const body =
  spec && !/^\d+$/.test(spec)
    ? fs.readFileSync(spec)
    : Buffer.from(JSON.stringify({ status: 'ok', pad: 'x'.repeat(Math.max(0, Number(spec ?? 300) - 25)) }))

uWS
  .App()
  .any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(body)
    })
  })
  .listen('127.0.0.1', Number(portText), (token) => {
    if (!token) process.exit(1)
    process.stdout.write('ready\n')
  })
