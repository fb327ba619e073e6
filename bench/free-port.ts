/**
 * @module
 * A free TCP port on 127.0.0.1 (bound, read, released), for servers the benchmarks and the tests start
 * (test/helpers/spawn-server.ts re-exports it).
 */
import net from 'node:net'

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}
