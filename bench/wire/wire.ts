/**
 * @module
 * Venue-to-bot latency (`npm run bench -- wire`, docs/benchmarks.md "Wire"): the local venue protocol
 * servers of the tests (bench/wire/venues.ts) send one-trade messages for every market of Binance, Bybit
 * and OKX (~520) at a live rate with 10x bursts, while Deribit's options chain is polled; two receivers
 * take the same messages at the same moment (each trade is sent to both connections back to back):
 * - Tidewatch: the built server (`dist/server/main.js`, SOURCES=binance,bybit,okx,deribit pointed at the
 *   local servers) ingests, normalizes, stores, updates the live state and pushes on /v1/stream;
 * - the bare relay (bench/wire/bare-relay.ts): uWS forwarding each raw message unparsed, the floor.
 * Each has SUBSCRIBERS sockets in its own subscriber process (bench/wire/subscribers.ts) holding the same
 * channels (`trades:<base>` x2, `candles:<base>:1m`), measuring send-to-receive per delivered trade
 * (CLOCK_MONOTONIC, bench/wire/clock.ts). Phases: warm-up (not reported), live, then BURSTS x (10x burst,
 * live recovery). With BENCH_WIRE_PROFILE=1 the server runs under `--cpu-prof` (profile in bench/results).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath, projectRoot } from '../../engine/paths.js'
import { benchChild, type BenchChild } from '../child.js'
import { freePort } from '../free-port.js'
import { subscriptions, type WireMarket } from './markets.js'
import type { Phase } from './venues.js'
import { expectedDeliveries, matchDeliveries, type Sends } from './match.js'
import { PhaseCpu } from './phase-cpu.js'

/** messages per second of all venues together at the live rate */
const LIVE_RATE = Number(process.env['BENCH_WIRE_RATE'] ?? 2_000)
const SUBSCRIBERS = Number(process.env['BENCH_WIRE_SUBS'] ?? 1_000)
const LIVE_S = Number(process.env['BENCH_WIRE_LIVE_S'] ?? 30)
const BURSTS = 3
const BURST_S = 2
/** live rate between bursts, s: what a burst leaves behind drains here (reported apart) */
const RECOVER_S = 5
const ADMIN = 'bench-admin-token-0123456789'
/** after the last send, ms: the last deliveries arrive */
const DRAIN_MS = 5_000
/** receivers' CPU with nothing sent, measured before the run, ms (bench/wire/phase-cpu.ts) */
const IDLE_MS = 3_000

type Msg = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- IPC answers

function child(file: string, args: string[] = []): BenchChild {
  const proc = fork(distPath('bench', 'wire', file), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return benchChild(proc, file)
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function getJson(url: string, init?: RequestInit): Promise<Msg> {
  const res = await fetch(url, init)
  return (await res.json()) as Msg
}

async function startServer(env: Record<string, string>, dir: string, profileDir: string | null) {
  const port = await freePort()
  const args = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
  const proc = spawn(process.execPath, [...args, distPath('server', 'main.js')], {
    env: {
      ...process.env,
      TZ: 'UTC',
      UV_THREADPOOL_SIZE: '16',
      DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: ADMIN,
      SOURCES: 'binance,bybit,okx,deribit',
      LOG_LEVEL: 'warn',
      // per-stage ages of the live path in /v1/health (engine/live/path-probe.ts)
      LIVE_PATH_PROBE: '1',
      ...env
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    cwd: projectRoot()
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    const h = await getJson(`${base}/v1/health`).catch(() => null)
    if (h?.['ready'] && (h['sources'] as Msg[]).every((s) => s['connected'])) break
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}`)
    if (i % 50 === 49) console.log(`wire: server ${h ? `waiting for ${JSON.stringify(h['waiting_for'])}` : 'starting'}`)
    if (i > 1200) throw new Error(`server not ready: ${JSON.stringify(h?.['waiting_for'])}`)
    await sleep(100)
  }
  return { proc, base, port }
}

/** Waits until the priming trades reached the live state (3 s, then nothing queued for it). */
async function waitPrimed(base: string): Promise<void> {
  await sleep(3_000)
  for (let i = 0; i < 600; i++) {
    if ((await getJson(`${base}/v1/health`))['live']['queued'] === 0) return
    await sleep(100)
  }
}

function phasesOf(): Phase[] {
  const out: Phase[] = [
    { name: 'warm', seconds: 8, rate: LIVE_RATE },
    { name: 'live', seconds: LIVE_S, rate: LIVE_RATE }
  ]
  for (let i = 0; i < BURSTS; i++) {
    out.push({ name: 'burst', seconds: BURST_S, rate: LIVE_RATE * 10 })
    out.push({ name: 'after_burst', seconds: RECOVER_S, rate: LIVE_RATE })
  }
  return out
}

export async function wireBench(): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-wire-'))
  const resultsDir = path.join(projectRoot(), 'bench', 'results')
  const profileDir = process.env['BENCH_WIRE_PROFILE'] === '1' ? path.join(resultsDir, 'wire-profile') : null
  const venues = child('venues.js')
  const procs: ChildProcess[] = [venues.proc]
  try {
    const v = await venues.next('ready')
    const markets = v['markets'] as WireMarket[]
    console.log(`wire: ${markets.length} markets on 3 perpetual venues, Deribit BTC/ETH chains`)
    const server = await startServer(v['env'] as Record<string, string>, dir, profileDir)
    procs.push(server.proc)
    const key = (
      await getJson(`${server.base}/v1/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'enterprise', name: 'wire-bench' })
      })
    )['key'] as string
    const relay = child('bare-relay.js')
    procs.push(relay.proc)
    relay.proc.send({ markets, env: v['env'] })
    const relayPort = (await relay.next('ready'))['port'] as number
    // both receivers hold every market's trade stream before anything is sent
    for (let i = 0; ; i++) {
      venues.proc.send({ cmd: 'held', holders: 2 })
      const h = await venues.next('held')
      if (h['held'] === h['of']) break
      if (i % 25 === 24) console.log(`wire: trade streams held by both receivers: ${h['held']} of ${h['of']}`)
      if (i > 600) throw new Error(`trade streams held by both receivers: ${h['held']} of ${h['of']}`)
      await sleep(200)
    }
    venues.proc.send({ cmd: 'prime' })
    await venues.next('primed')
    await waitPrimed(server.base)
    const subs = subscriptions(markets, SUBSCRIBERS, 0x5eed)
    const clients = {
      tidewatch: child('subscribers.js'),
      bare: child('subscribers.js')
    }
    procs.push(clients.tidewatch.proc, clients.bare.proc)
    clients.tidewatch.proc.send({
      kind: 'tidewatch',
      url: `ws://127.0.0.1:${server.port}/v1/stream?key=${key}`,
      subs,
      markets
    })
    clients.bare.proc.send({ kind: 'bare', url: `ws://127.0.0.1:${relayPort}/`, subs, markets })
    const connected = await Promise.all([clients.tidewatch.next('connected'), clients.bare.next('connected')])
    console.log(`wire: ${SUBSCRIBERS} subscribers each, connected in ${connected.map((c) => c['ms']).join(' / ')} ms`)
    if (connected[0]!['refused'].length) console.log(`wire: channels refused: ${connected[0]!['refused'].join('; ')}`)
    const cpu = new PhaseCpu(server.proc.pid!, relay.proc.pid!)
    await cpu.measureIdle(IDLE_MS)
    const onPhase = (m: Msg): void => {
      if ('phase' in m) cpu.enter(m['phase'] as string)
    }
    venues.proc.on('message', onPhase)
    const cpu0 = os.loadavg()
    const phases = phasesOf()
    venues.proc.send({ cmd: 'run', phases })
    const ran = await venues.next('ran')
    cpu.enter(null)
    venues.proc.off('message', onPhase)
    const sends: Sends = { sendTimes: ran['sendTimes'], sendPhases: ran['sendPhases'], phases: ran['phases'] }
    await sleep(DRAIN_MS)
    const reports = await Promise.all(
      (['tidewatch', 'bare'] as const).map(async (k) => {
        const file = path.join(dir, `${k}.deliveries`)
        clients[k].proc.send({ cmd: 'report', file })
        const r = (await clients[k].next('report'))['report']
        const { unmatched, ...latency } = matchDeliveries(file, sends)
        const expected = expectedDeliveries(markets, subs, sends, k === 'bare')
        return {
          counts: { ...r['counts'], unmatched, expected_trade_deliveries: expected },
          refused: r['refused'],
          subscriber_event_loop_delay_ms: r['event_loop_delay_ms'],
          ...latency
        }
      })
    )
    const health = await getJson(`${server.base}/v1/health`)
    relay.proc.send({ cmd: 'counts' })
    const relayCounts = (await relay.next('counts'))['counts']
    const [tw, bare] = reports as unknown as [Msg, Msg]
    const p99 = (r: Msg, phase: string): number => r['all'][phase]?.['p99_ms']
    const round = (x: number): number => Math.round(x * 100) / 100
    const sources = (health['sources'] as Msg[]).map((s) => ({
      name: s['name'],
      messages: s['messages'],
      dropped: s['dropped'],
      gaps_found: s['gaps_found'],
      rows: s['rows']
    }))
    return {
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      load_avg_1m_at_start: round(cpu0[0]!),
      load_avg_1m_at_end: round(os.loadavg()[0]!),
      markets: markets.length,
      subscribers: SUBSCRIBERS,
      channels_per_subscriber: subs[0]!.length,
      live_rate_msgs_per_s: LIVE_RATE,
      burst_rate_msgs_per_s: LIVE_RATE * 10,
      phases,
      sent: ran['ran'],
      cpu_per_message_us: cpu.figures(ran['ran'] as Record<string, number>),
      phase_windows: cpu.windows,
      tidewatch: tw,
      bare_relay: { ...bare, forwarded: relayCounts['forwarded'] },
      tidewatch_health: {
        sources,
        live: health['live'],
        stream: health['stream'],
        event_loop_delay_ms: health['process']?.['event_loop_delay_ms']
      },
      p99_minus_bare_ms: {
        live: round(p99(tw, 'live') - p99(bare, 'live')),
        burst: round(p99(tw, 'burst') - p99(bare, 'burst'))
      },
      targets: { live_p99_minus_bare_max_ms: 2, burst_p99_minus_bare_max_ms: 10 }
    }
  } finally {
    for (const p of procs.slice().reverse()) {
      if (p.exitCode !== null) continue
      const exited = new Promise((r) => p.once('exit', r))
      if (p.connected) p.send({ cmd: 'stop' })
      else p.kill('SIGTERM')
      await Promise.race([exited, sleep(10_000)])
      if (p.exitCode === null) p.kill('SIGKILL')
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
