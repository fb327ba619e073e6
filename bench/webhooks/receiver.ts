/**
 * @module
 * The benchmark's webhook receiver, in its own process (so its CPU is not the sender's): HTTPS on
 * 127.0.0.1, `/fast` answers 200 `ok` at once, `/stuck` never answers (the memory phase's pending
 * deliveries). Args: the directory holding server.key and server.pem. Sends `{ port }` over IPC when
 * listening; answers `{ cmd: 'count' }` with `{ count }` (requests received).
 */
import fs from 'node:fs'
import https from 'node:https'
import type net from 'node:net'
import path from 'node:path'

const dir = process.argv[2]!
let count = 0
const server = https.createServer(
  {
    key: fs.readFileSync(path.join(dir, 'server.key')),
    cert: fs.readFileSync(path.join(dir, 'server.pem')),
    keepAliveTimeout: 60_000
  },
  (req, res) => {
    count++
    req.resume()
    req.on('end', () => {
      if (req.url === '/stuck') return
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' })
      res.end('ok')
    })
  }
)
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as net.AddressInfo).port }))
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'count') process.send!({ count })
})
process.on('disconnect', () => process.exit(0))
