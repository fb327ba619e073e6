/**
 * @module
 * The HTTP reference: a bare uWebSockets.js server answering every request with a static JSON body of the
 * given size. `node dist/bench/http/bare-uws.js <port> <bytes>`; prints `ready` when listening.
 */
import uWS from 'uWebSockets.js'

const [portText, bytesText] = process.argv.slice(2)
const size = Number(bytesText ?? 300)
const body = Buffer.from(JSON.stringify({ status: 'ok', pad: 'x'.repeat(Math.max(0, size - 25)) }))

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
