/**
 * @module
 * Webhook delivery benchmark (docs/webhooks.md; `npm run bench -- webhooks`). Against one HTTPS receiver in its own
 * process, alternating rounds in one run:
 * - ours: signal events into the outbox (real chDB store: delivery rows stored before the first attempt,
 *   attempt rows after, both through the outbox's journal; a round ends once its rows are in the store),
 *   each delivered signed (X-Service-Signature and Standard Webhooks) over the undici
 *   transport with the SSRF-guarded connector, published in a closed loop (at most WINDOW waiting);
 *   delivered per second from the first publish to the last 2xx and its rows in the store (target
 *   >= 2,000/s);
 * - ours without the store: the same outbox over a store that keeps nothing (what durability costs);
 * - bare: an undici POST loop to the same receiver, same body size and headers, same connections and
 *   requests in flight, nothing stored or signed (target: ours >= 0.7x bare).
 * Each round also reports this process's CPU per delivery (steadier than rates on a shared machine) and,
 * for the outbox, how long it waited at its end for its journaled rows to be in the store.
 * Then a steady offered load of 2,000 events/s for 10 s (delivered rate, most deliveries waiting), and
 * memory: 100,000 deliveries left pending (a receiver that never answers), RSS and heap before and
 * after.
 */
import { fork, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Agent } from 'undici'
import { loadConfig, type WebhookConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { distPath } from '../../engine/paths.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { benchSignal } from './bench-event.js'
import type { Store } from '../../engine/store/store.js'
import { payloadBytes } from '../../engine/webhooks/payload.js'
import { WebhookService } from '../../engine/webhooks/service.js'
import { signedHeaders } from '../../engine/webhooks/signing.js'
import { UndiciTransport } from '../../server/webhooks/undici-transport.js'
import { median } from '../stats.js'
import { makeBenchTls } from './tls.js'

/** Deliveries per throughput round. */
const DELIVERIES = Number(process.env['BENCH_WEBHOOK_DELIVERIES'] ?? 20_000)
/** Deliveries of each kind's warm-up round, not reported (env BENCH_WEBHOOK_WARMUP). */
const WARMUP = Number(process.env['BENCH_WEBHOOK_WARMUP'] ?? DELIVERIES)
/** Deliveries left pending in the memory phase. */
const PENDING = Number(process.env['BENCH_WEBHOOK_PENDING'] ?? 100_000)
/** Connections (= requests in flight) to the receiver, both clients: WEBHOOK_RECEIVER_CONCURRENCY's default. */
const CONNECTIONS = 16
const SECRET = 'bench-secret-0123456789abcdef'

const MB = 1024 * 1024
const mb = (n: number): number => Math.round(n / MB)

function startReceiver(dir: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = fork(distPath('bench', 'webhooks', 'receiver.js'), [dir], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  return new Promise((resolve, reject) => {
    proc.once('message', (m: { port: number }) => resolve({ proc, port: m.port }))
    proc.once('exit', (code) => reject(new Error(`receiver exited ${code}`)))
  })
}

const event = (): SignalEvent => benchSignal('bench')

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

/** Events published but not yet delivered, at most, in the throughput rounds (a closed loop, as the bare loop's requests in flight). */
const WINDOW = 10_000
/** Events published per turn of the event loop. */
const CHUNK = 500

/**
 * Our path, sustained: events published in chunks while at most WINDOW wait (so the outbox runs in its
 * steady state rather than digesting one burst), each stored, signed, sent and its attempt stored.
 * Delivered per second from the first publish to the last 2xx, and how long the round waited at its end
 * for its journaled rows to be in the store, ms.
 */
async function oursRound(service: WebhookService, n: number): Promise<{ rate: number; flushMs: number }> {
  const stats = () => service.outbox.stats()
  const base = stats().delivered
  const t0 = performance.now()
  let published = 0
  while (published < n) {
    const room = Math.min(CHUNK, n - published, WINDOW - (published - (stats().delivered - base)))
    for (let i = 0; i < room; i++) service.outbox.onEvent(event())
    published += Math.max(0, room)
    // yield a turn; when the window is full, wait instead of spinning
    await new Promise((r) => (room > 0 ? setImmediate(r) : setTimeout(r, 1)))
  }
  await waitFor(() => stats().delivered - base >= n, 300_000, 'deliveries')
  // the round ends when its rows are in the store too (the journal loaded, as a read of the log does first)
  const f0 = performance.now()
  await service.outbox.flush()
  const flushMs = Math.round(performance.now() - f0)
  const s = (performance.now() - t0) / 1000
  return { rate: Math.round(n / s), flushMs }
}

/**
 * An offered load of `perS` events/s for `seconds`: the rate delivered and the most deliveries waiting, to
 * show the outbox keeps up (the pending count stays bounded) at the target rate.
 */
async function steadyRound(
  service: WebhookService,
  perS: number,
  seconds: number
): Promise<{ offered_per_s: number; delivered_per_s: number; max_pending: number }> {
  const stats = () => service.outbox.stats()
  const base = stats().delivered
  const n = perS * seconds
  const t0 = performance.now()
  let published = 0
  let maxPending = 0
  while (published < n) {
    const due = Math.min(n, Math.floor(((performance.now() - t0) / 1000) * perS))
    for (; published < due; published++) service.outbox.onEvent(event())
    maxPending = Math.max(maxPending, stats().pending)
    await new Promise((r) => setTimeout(r, 5))
  }
  await waitFor(() => stats().delivered - base >= n, 300_000, 'deliveries')
  return {
    offered_per_s: perS,
    delivered_per_s: Math.round(n / ((performance.now() - t0) / 1000)),
    max_pending: maxPending
  }
}

/** The reference: undici POSTs of a same-size signed-looking body, CONNECTIONS in flight, nothing stored. */
async function bareRound(url: string, ca: string, n: number): Promise<number> {
  const agent = new Agent({ connections: CONNECTIONS, pipelining: 1, connect: { ca } })
  const body = payloadBytes({
    event: 'HIGH',
    eventTs: Date.now(),
    payload: { symbol: 'BTC', direction: 'long', confidence: 'HIGH', composite: 0.61803 },
    webhookId: 1
  })
  const headers = signedHeaders('0'.repeat(64), 'HIGH', 'msg_00000000000000000000000000000000', Date.now(), body)
  const u = new URL(url)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < n) {
      next++
      const res = await agent.request({ origin: u.origin, path: u.pathname, method: 'POST', headers, body })
      await res.body.text()
      if (res.statusCode !== 200) throw new Error(`bare: ${res.statusCode}`)
    }
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, worker))
  const s = (performance.now() - t0) / 1000
  await agent.close()
  return Math.round(n / s)
}

/** A store that keeps nothing: the same outbox without ClickHouse, to show what storing costs. */
class NullStore implements Store {
  readonly kind = 'chdb' as const
  async command(): Promise<void> {}
  async query<T>(): Promise<T[]> {
    return []
  }
  async insert(): Promise<void> {}
  async *stream(): AsyncIterable<Uint8Array> {}
  async close(): Promise<void> {}
}

async function unstoredService(
  config: WebhookConfig,
  url: string,
  ca: string,
  dataDir: string
): Promise<WebhookService> {
  const s = await WebhookService.open({
    store: new NullStore(),
    config,
    dataDir,
    log: silentLogger(),
    transport: (policy) =>
      new UndiciTransport({ policy, perReceiver: config.receiverConcurrency, timeoutMs: config.timeoutMs, ca: [ca] })
  })
  await s.resume()
  await s.registry.create('bench', { url, events: ['*'], symbols: ['*'], secret: SECRET })
  return s
}

export async function webhooksBench(rounds: number): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-webhooks-'))
  const tls = makeBenchTls(dir)
  const receiver = await startReceiver(dir)
  const fast = `https://127.0.0.1:${receiver.port}/fast`
  const dataDir = path.join(dir, 'data')
  fs.mkdirSync(dataDir)
  const store = new ChdbStore({ path: dataDir, poolSize: 2 })
  await migrate(store, {})
  const config = loadConfig({
    DATA_DIR: dataDir,
    SOURCES: 'none',
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBHOOK_RECEIVER_CONCURRENCY: String(CONNECTIONS),
    // room for every round's deliveries and the memory phase's at once (the bounds are tested elsewhere)
    WEBHOOK_MAX_PENDING: String(2 * Math.max(PENDING, DELIVERIES)),
    WEBHOOK_MAX_PENDING_PER_WEBHOOK: String(2 * Math.max(PENDING, DELIVERIES))
  }).webhooks
  const service = await WebhookService.open({
    store,
    config,
    dataDir,
    log: silentLogger(),
    transport: (policy) =>
      new UndiciTransport({
        policy,
        perReceiver: config.receiverConcurrency,
        timeoutMs: config.timeoutMs,
        ca: [tls.ca]
      })
  })
  try {
    await service.resume() // as the server does at start (nothing to resume here)
    const hook = await service.registry.create('bench', { url: fast, events: ['*'], symbols: ['*'], secret: SECRET })
    // warm-up, not reported: connections, TLS sessions, JIT, the heap's and the store's first growth. One
    // full round of each kind (WARMUP deliveries): after 2,000-delivery warm-ups the first measured round of
    // every kind, the bare loop's too, is the slowest (~20% more CPU), and a server is long-running
    await oursRound(service, WARMUP)
    // its own data dir: its journal must not share the stored service's directory
    const unstoredDir = path.join(dir, 'data-unstored')
    fs.mkdirSync(unstoredDir)
    const unstored = await unstoredService(config, fast, tls.ca, unstoredDir)
    await oursRound(unstored, WARMUP)
    await bareRound(fast, tls.ca, WARMUP)
    const runs: { ours: number[]; bare: number[]; unstored: number[] } = { ours: [], bare: [], unstored: [] }
    // this process's CPU (main thread, libuv and the embedded engine's threads; not the receiver's) per
    // delivery, µs: steadier than rates on a shared machine
    const cpu: { ours: number[]; bare: number[]; unstored: number[] } = { ours: [], bare: [], unstored: [] }
    const order = ['ours', 'bare', 'unstored'] as const
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < order.length; i++) {
        const which = order[(i + r) % order.length]!
        const cpu0 = process.cpuUsage()
        const round =
          which === 'ours'
            ? await oursRound(service, DELIVERIES)
            : which === 'unstored'
              ? await oursRound(unstored, DELIVERIES)
              : { rate: await bareRound(fast, tls.ca, DELIVERIES), flushMs: null }
        const rate = round.rate
        const used = process.cpuUsage(cpu0)
        const us = Math.round((used.user + used.system) / DELIVERIES)
        runs[which].push(rate)
        cpu[which].push(us)
        const flushed = round.flushMs === null ? '' : `, ${round.flushMs} ms waiting for the store at the end`
        console.log(`webhooks round ${r + 1} ${which}: ${rate} deliveries/s, ${us} µs CPU per delivery${flushed}`)
      }
    }
    await unstored.stop(Date.now() + 2_000)
    const steady = await steadyRound(service, 2_000, 10)
    console.log(
      `webhooks steady 2000/s for 10 s: ${steady.delivered_per_s} delivered/s, at most ${steady.max_pending} pending`
    )
    const stats = service.outbox.stats()
    await service.registry.setState(hook, 'removed', 'bench')

    // memory: PENDING deliveries waiting for a receiver that never answers
    global.gc?.()
    const before = process.memoryUsage()
    await service.registry.create('bench', {
      url: `https://127.0.0.1:${receiver.port}/stuck`,
      events: ['*'],
      symbols: ['*'],
      secret: SECRET
    })
    const t0 = performance.now()
    const pendingBase = service.outbox.stats().pending
    for (let i = 0; i < PENDING; i++) service.outbox.onEvent(event())
    await waitFor(() => service.outbox.stats().pending - pendingBase >= PENDING, 300_000, 'pending deliveries')
    await service.outbox.flush()
    const storedS = (performance.now() - t0) / 1000
    global.gc?.()
    const after = process.memoryUsage()
    const o = median(runs.ours)
    const b = median(runs.bare)
    return {
      deliveries_per_round: DELIVERIES,
      connections: CONNECTIONS,
      receiver: 'HTTPS, own process, 200 ok at once',
      runs_per_s: runs,
      median_per_s: { ours: o, bare_undici: b, ours_without_store: median(runs.unstored) },
      ours_vs_bare: Math.round((o / b) * 100) / 100,
      cpu_us_per_delivery: cpu,
      median_cpu_us_per_delivery: {
        ours: median(cpu.ours),
        bare_undici: median(cpu.bare),
        ours_without_store: median(cpu.unstored)
      },
      // the same ratio from CPU per delivery (bare / ours): what the rate ratio tends to when the sender's
      // CPU is the limit, and much less disturbed by other work on the machine
      ours_vs_bare_by_cpu: Math.round((median(cpu.bare) / median(cpu.ours)) * 100) / 100,
      steady_2000_per_s: steady,
      targets: { ours_per_s: 2_000, ours_vs_bare: 0.7 },
      outbox_after_rounds: stats,
      memory: {
        pending: service.outbox.stats().pending,
        stored_in_s: Math.round(storedS * 10) / 10,
        rss_mb: { before: mb(before.rss), after: mb(after.rss) },
        heap_used_mb: { before: mb(before.heapUsed), after: mb(after.heapUsed) },
        heap_bytes_per_pending: Math.round((after.heapUsed - before.heapUsed) / PENDING),
        gc_exposed: typeof global.gc === 'function'
      }
    }
  } finally {
    receiver.proc.kill('SIGKILL')
    await service.stop(Date.now() + 2_000).catch(() => {})
    await store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
