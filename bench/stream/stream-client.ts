/**
 * @module
 * Client side of the push-stream benchmark, a child process (IPC) using the `ws` package for every server
 * alike: opens N connections, subscribes (Tidewatch: a subscribe op, then waits for the snapshot; bare:
 * subscribed on open), and for each update frame parses it and records publish-to-receive latency
 * (receive time minus the trade's `ts`, fractional epoch ms) and the receive time.
 */
import WebSocket from 'ws'

type Cmd =
  | { cmd: 'connect'; url: string; n: number; keys: string[]; subscribe: boolean }
  | { cmd: 'reset' }
  | { cmd: 'report' }
  | { cmd: 'close' }

const nowPrecise = (): number => performance.timeOrigin + performance.now()
const sockets: WebSocket[] = []
/** latencies of received updates, ms (bounded: the benchmark sends at most a few million) */
let lat = new Float64Array(1 << 22)
let count = 0
let first = 0
let last = 0

function onMessage(data: WebSocket.RawData): void {
  const msg = JSON.parse((data as Buffer).toString('utf8')) as { type: string; data: { ts: number }[] }
  if (msg.type !== 'update') return
  const t = nowPrecise()
  if (count === 0) first = t
  last = t
  if (count < lat.length) lat[count] = t - msg.data[0]!.ts
  count++
}

function open(url: string, subscribe: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    ws.once('error', reject)
    ws.once('open', () => {
      sockets.push(ws)
      if (!subscribe) {
        ws.on('message', onMessage)
        resolve()
        return
      }
      // until the snapshot: wait for it; after it, the same handler as the bare server's sockets
      ws.on('message', (data) => {
        if (!(data as Buffer).toString('utf8').startsWith('{"type":"snapshot"')) return
        ws.removeAllListeners('message')
        ws.on('message', onMessage)
        resolve()
      })
      ws.send(JSON.stringify({ op: 'subscribe', channels: ['trades:BTC'] }))
    })
  })
}

function pct(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : Number.NaN
}

process.on('message', (m: Cmd) => {
  void (async () => {
    if (m.cmd === 'connect') {
      const t0 = Date.now()
      for (let i = 0; i < m.n; i += 200) {
        const batch: Promise<void>[] = []
        for (let j = i; j < Math.min(m.n, i + 200); j++) {
          const key = m.keys.length ? `?key=${m.keys[Math.floor(j / 1_000)]}` : ''
          batch.push(open(m.url + key, m.subscribe))
        }
        await Promise.all(batch)
      }
      process.send!({ connected: sockets.length, ms: Date.now() - t0 })
    } else if (m.cmd === 'reset') {
      count = 0
      lat = new Float64Array(1 << 22)
      process.send!({ reset: true })
    } else if (m.cmd === 'report') {
      const sorted = lat.slice(0, Math.min(count, lat.length)).sort()
      process.send!({ count, p50: pct(sorted, 0.5), p99: pct(sorted, 0.99), first, last })
    } else {
      for (const ws of sockets) ws.terminate()
      process.exit(0)
    }
  })()
})
process.send!({ ready: true })
