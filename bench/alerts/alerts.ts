/**
 * @module
 * Inbound alerts benchmark (`npm run bench -- alerts`, docs/alerts.md): `POST /v1/tradingview/webhook`
 * against `GET /v1/confirm` in the same run, same server, same rate, alternating rounds. Load: RATE
 * requests/s, open loop (bench/alerts/paced-client.ts, its own process), for SECONDS per round. Alerts are
 * distinct (never duplicates), text/plain like TradingView's, symbols in exchange form (BINANCE:BTCUSDT.P,
 * ETHUSDT, SOL/USDT), on an enterprise key with forward: true, so each is authenticated, counted, confirmed
 * from the shared answer cache, answered with an id and published as a SIGNAL (stored by the signal
 * writer). The server runs the demo market with one day of history. Target: alert p99 <= 50 ms at 200/s.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { distPath, projectRoot } from '../../engine/paths.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'

const PORT = 19231
/** requests/s: the rate the target names (TradingView stops an alert past 15 fires in 3 min; 200/s is many users) */
const RATE = Number(process.env['BENCH_ALERTS_RATE'] ?? 200)
const SECONDS = Number(process.env['BENCH_ALERTS_SECONDS'] ?? 10)
const CONNECTIONS = 32
/** unmeasured load before the rounds, s (JIT of both paths) */
const WARMUP_SECONDS = 3

interface Paced {
  readonly sent: number
  readonly ok: number
  readonly errors: number
  readonly non2xx: number
  readonly achieved_per_s: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly max_ms: number
}

interface Round extends Paced {
  readonly server_loop_p99_ms: number | null
}

async function loopLag(base: string): Promise<number | null> {
  const h = (await (await fetch(`${base}/v1/health`)).json()) as {
    process?: { event_loop_delay_ms?: { p99?: number } }
  }
  return h.process?.event_loop_delay_ms?.p99 ?? null
}

function paced(args: Record<string, unknown>): Promise<Paced> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [distPath('bench', 'alerts', 'paced-client.js'), JSON.stringify(args)],
      { maxBuffer: 1024 * 1024 },
      (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Paced))
    )
  })
}

async function call(base: string, method: string, p: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(`${base}${p}`, { method, headers, ...(body === undefined ? {} : { body }) })
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

export async function alertsBench(rounds: number): Promise<Record<string, unknown>> {
  const server = await startBenchServer(PORT, { SIM_BACKFILL_DAYS: '1' }, (h) => h.sources[0]?.phase === 'live')
  try {
    const { base } = server
    const admin = { authorization: `Bearer ${BENCH_ADMIN}` }
    const { key } = (await call(base, 'POST', '/v1/admin/keys', admin, '{"plan":"enterprise"}')) as { key: string }
    const { secret } = (await call(base, 'POST', '/v1/alerts/secret', { 'x-api-key': key })) as { secret: string }
    await call(base, 'PUT', '/v1/alerts/settings', { 'x-api-key': key }, '{"forward":true}')
    const common = { base, rate: RATE, key, secret, connections: CONNECTIONS }
    await paced({ ...common, kind: 'alert', seconds: WARMUP_SECONDS })
    await paced({ ...common, kind: 'confirm', seconds: WARMUP_SECONDS })
    const runs: { alert: Round[]; confirm: Round[] } = { alert: [], confirm: [] }
    for (let r = 0; r < rounds; r++) {
      for (const kind of r % 2 ? (['confirm', 'alert'] as const) : (['alert', 'confirm'] as const)) {
        const paced_ = await paced({ ...common, kind, seconds: SECONDS })
        // the server's event-loop lag over its last 10 s window (about this round): a stall of the server
        // shows here, a stall of the machine or the client only in the latencies
        const lag = await loopLag(base)
        const res = { ...paced_, server_loop_p99_ms: lag }
        runs[kind].push(res)
        console.log(
          `alerts round ${r + 1} ${kind}: ${res.achieved_per_s}/s p50 ${res.p50_ms} ms p99 ${res.p99_ms} ms max ${res.max_ms} ms (${res.ok} ok, ${res.non2xx} non-2xx, ${res.errors} errors); server loop lag p99 ${lag} ms`
        )
      }
    }
    const health = (await (await fetch(`${base}/v1/health`)).json()) as Record<string, unknown>
    const sum = (xs: Round[], f: (p: Round) => number): number => xs.reduce((n, x) => n + f(x), 0)
    const out = {
      rate_per_s: RATE,
      seconds_per_round: SECONDS,
      rounds,
      connections: CONNECTIONS,
      median_p50_ms: {
        alert: median(runs.alert.map((x) => x.p50_ms)),
        confirm: median(runs.confirm.map((x) => x.p50_ms))
      },
      median_p99_ms: {
        alert: median(runs.alert.map((x) => x.p99_ms)),
        confirm: median(runs.confirm.map((x) => x.p99_ms))
      },
      median_server_loop_p99_ms: {
        alert: median(runs.alert.map((x) => x.server_loop_p99_ms ?? Number.NaN)),
        confirm: median(runs.confirm.map((x) => x.server_loop_p99_ms ?? Number.NaN))
      },
      worst_max_ms: {
        alert: Math.max(...runs.alert.map((x) => x.max_ms)),
        confirm: Math.max(...runs.confirm.map((x) => x.max_ms))
      },
      failures: {
        alert: sum(runs.alert, (x) => x.errors + x.non2xx),
        confirm: sum(runs.confirm, (x) => x.errors + x.non2xx)
      },
      server_process: health['process'] ?? null,
      rounds_detail: runs,
      targets: { alert_p99_ms: 50 }
    }
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'alerts.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return out
  } finally {
    await server.stop()
  }
}
