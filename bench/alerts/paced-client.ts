/**
 * @module
 * Open-loop paced load for the alerts benchmark, run in its own process: one request every 1000/rate ms
 * whether or not earlier ones have answered, over keep-alive connections. A request's latency runs from
 * its scheduled send time (not the moment a socket was free), so a server that falls behind shows it
 * (no coordinated omission). Prints one JSON line: sent, ok, errors, non2xx, p50/p99/max ms, achieved rate.
 *
 * argv[2]: JSON { base, kind: 'alert' | 'confirm', rate, seconds, key, secret, connections }
 */
import http from 'node:http'
import { performance } from 'node:perf_hooks'

interface Args {
  readonly base: string
  readonly kind: 'alert' | 'confirm'
  readonly rate: number
  readonly seconds: number
  readonly key: string
  readonly secret: string
  readonly connections: number
}

const SYMBOLS = ['BINANCE:BTCUSDT.P', 'ETHUSDT', 'SOL/USDT'] as const
const BASES = ['BTC', 'ETH', 'SOL'] as const

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

async function main(): Promise<void> {
  const a = JSON.parse(process.argv[2]!) as Args
  const url = new URL(a.base)
  const agent = new http.Agent({ keepAlive: true, maxSockets: a.connections })
  const total = Math.round(a.rate * a.seconds)
  const interval = 1000 / a.rate
  const latencies: number[] = []
  let ok = 0
  let errors = 0
  let non2xx = 0
  let done = 0
  let finish!: () => void
  const finished = new Promise<void>((r) => (finish = r))
  const settle = (): void => {
    if (++done === total) finish()
  }
  const send = (i: number, due: number): void => {
    const dir = i % 2 ? 'short' : 'long'
    const n = i % 3
    const alert = a.kind === 'alert'
    // distinct alerts (the price differs): each one is counted, confirmed and forwarded, never a duplicate
    const body = alert
      ? JSON.stringify({
          secret: a.secret,
          symbol: SYMBOLS[n],
          direction: dir,
          timeframe: '15',
          strategy: 'bench',
          price: 1000 + i
        })
      : undefined
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        agent,
        method: alert ? 'POST' : 'GET',
        path: alert ? '/v1/tradingview/webhook' : `/v1/confirm?symbol=${BASES[n]}&direction=${dir}`,
        headers: alert
          ? { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body!) }
          : { 'x-api-key': a.key }
      },
      (res) => {
        res.resume()
        res.on('end', () => {
          latencies.push(performance.now() - due)
          if (res.statusCode === 200) ok++
          else non2xx++
          settle()
        })
      }
    )
    req.on('error', () => {
      errors++
      settle()
    })
    req.end(body)
  }
  const t0 = performance.now() + 50
  let next = 0
  const tick = (): void => {
    const now = performance.now()
    while (next < total && t0 + next * interval <= now) {
      send(next, t0 + next * interval)
      next++
    }
    if (next < total) setTimeout(tick, Math.max(0, t0 + next * interval - performance.now()))
  }
  setTimeout(tick, 50)
  await finished
  const elapsed = (performance.now() - t0) / 1000
  agent.destroy()
  const sorted = latencies.sort((x, y) => x - y)
  const round = (x: number): number => Math.round(x * 100) / 100
  console.log(
    JSON.stringify({
      sent: total,
      ok,
      errors,
      non2xx,
      achieved_per_s: Math.round(total / elapsed),
      p50_ms: round(percentile(sorted, 50)),
      p99_ms: round(percentile(sorted, 99)),
      max_ms: round(sorted.at(-1) ?? Number.NaN)
    })
  )
}

void main()
