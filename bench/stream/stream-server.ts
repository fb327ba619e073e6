/**
 * @module
 * Server side of the push-stream benchmark, run as a child process (IPC): `bare` is a bare uWebSockets.js
 * pub/sub server (every socket subscribed to one topic, frames of the same shape as Tidewatch's); `tidewatch`
 * is the real server in-process (temp data dir, no sources), where a publish is a trade applied to the
 * live state: the hub numbers it, encodes it and hands it to uWS pub/sub exactly as live data is.
 * Trades carry their publish time as `ts` (fractional epoch ms) so the client measures latency. `heap`
 * answers the JS heap in use after full collections (what connections retain, garbage excluded).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import uWS from 'uWebSockets.js'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { start } from '../../server/start.js'
import { HARD_BACKPRESSURE_BYTES, IDLE_TIMEOUT_S } from '../../server/stream/stream-service.js'

const kind = process.argv[2] as 'bare' | 'tidewatch'
const nowPrecise = (): number => performance.timeOrigin + performance.now()
let n = 0
const trade = (): TradeRecord => ({
  kind: 'trade',
  ts: nowPrecise(),
  exchange: 'binance',
  market: 'perp',
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  side: n % 2 ? 'buy' : 'sell',
  price: 50_000 + (n % 100),
  qty: 0.01,
  trade_id: String(++n)
})

type Cmd = { cmd: 'publish'; count: number; intervalMs: number } | { cmd: 'rss' } | { cmd: 'heap' } | { cmd: 'stop' }

async function main(): Promise<void> {
  let publish: () => void
  let stop: () => Promise<void>
  let port: number
  let keys: string[] = []
  if (kind === 'bare') {
    const app = uWS.App()
    let seq = 0
    app.ws('/*', {
      compression: uWS.DISABLED,
      maxBackpressure: HARD_BACKPRESSURE_BYTES,
      idleTimeout: IDLE_TIMEOUT_S,
      open: (ws) => void ws.subscribe('trades:BTC')
    })
    publish = () => {
      const t = trade()
      const { kind: _k, market: _m, base: _b, quote: _q, ...wire } = t
      app.publish(
        'trades:BTC',
        JSON.stringify({ type: 'update', channel: 'trades:BTC', seq: ++seq, data: [wire] }),
        false
      )
    }
    port = await new Promise<number>((resolve) =>
      app.listen('127.0.0.1', 0, (token) => resolve(uWS.us_socket_local_port(token)))
    )
    stop = async () => undefined
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-stream-'))
    const running = await start(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dir,
        SOURCES: 'none',
        ADMIN_TOKEN: 'bench-admin-token-0123456789'
      }),
      silentLogger()
    )
    const live = running.ctx.live
    live.apply([trade()]) // the market exists before anyone subscribes
    for (let i = 0; i < 12; i++) keys.push((await running.ctx.keys.create('enterprise', `bench${i}`)).key)
    publish = () => live.apply([trade()])
    port = running.port
    stop = async () => {
      await running.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  process.on('message', (m: Cmd) => {
    if (m.cmd === 'rss') process.send!({ rss: process.memoryUsage().rss })
    else if (m.cmd === 'heap') {
      // retained JS heap: after full collections (the parent forks this process with --expose-gc)
      const gc = (globalThis as { gc?: () => void }).gc
      gc?.()
      gc?.()
      process.send!({ heap: gc ? process.memoryUsage().heapUsed : Number.NaN })
    } else if (m.cmd === 'stop') void stop().then(() => process.exit(0))
    else {
      let left = m.count
      const step = (): void => {
        publish()
        if (--left > 0) {
          if (m.intervalMs > 0) setTimeout(step, m.intervalMs)
          else setImmediate(step)
        } else process.send!({ published: m.count })
      }
      step()
    }
  })
  process.send!({ ready: true, port, keys })
}

void main()
