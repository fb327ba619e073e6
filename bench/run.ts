/**
 * @module
 * `npm run bench`: every benchmark of the foundation, each against its reference measured in the same
 * run, alternating rounds (this machine is shared and noisy: ratios of medians are the figures that
 * matter). Results go to bench/results/latest.json and a readable bench/results/latest.md.
 *
 * - ingest: rows/s of the e2e path vs the naive client.insert JSONEachRow path and the engine ceiling
 *   (pre-built TSV), same rows, same schema with every view; each run in a fresh process and data dir.
 * - http: GET /v1/health req/s vs a bare uWebSockets.js static reply of the same size, load from one wrk
 *   thread in its own process (bench/http/load.ts), 64 connections.
 * - cold start: spawn to first 200 from /v1/health with an existing data dir, the server alone and through
 *   `npm start` (`npm run bench -- start` runs only this one).
 * - webhooks: signed deliveries/s through the durable outbox vs a bare undici POST loop, and memory with
 *   100,000 pending deliveries (`npm run bench -- webhooks`, bench/webhooks/webhooks.ts).
 * - asof: p99 of as_of answers vs the live answer of /v1/confirm, /v1/derivatives/screener,
 *   /v1/whales/summary, /v1/onchain/metrics, and confirmSeries over 30 days at 1 h (`npm run bench -- asof`,
 *   bench/asof/asof.ts).
 * - rebuild: live-state rebuild time at 0.1M, 1M and 5M trades of the day with a producer writing; the
 *   ratio 5M / 0.1M (`npm run bench -- rebuild`, bench/rebuild/rebuild.ts).
 * - scale: the demo market at 30, 90 and 365 days of history, each in a fresh data dir: backfill, disk,
 *   start-up, readiness, fixed-window reads, export, RSS, compaction; the fixed window's candles must be
 *   byte-identical across sizes (`npm run bench -- scale`, bench/scale/scale.ts).
 * - steady demo feed: time to backfill SIM_BACKFILL_DAYS (default 30) on first start, then RSS and
 *   event-loop lag p99 from /v1/health over the first live windows.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath, projectRoot } from '../engine/paths.js'
import { load, loadTool, type LoadResult } from './http/load.js'
import { authOverhead } from './http/auth-overhead.js'
import { readEndpoints } from './http/read-endpoints.js'
import { optionsMicro } from './micro/options-chain.js'
import { whalesMicro } from './micro/whales.js'
import { median } from './stats.js'
import { historyBench } from './history/history.js'
import { importBench } from './import/import-bench.js'
import { streamBench } from './stream/stream.js'
import { replayBench } from './replay/replay.js'
import { webhooksBench } from './webhooks/webhooks.js'
import { rebuildBench } from './rebuild/rebuild.js'
import { asofBench } from './asof/asof.js'

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3)
const INGEST_DAYS = Number(process.env['BENCH_INGEST_DAYS'] ?? 6)
const HTTP_SECONDS = Number(process.env['BENCH_HTTP_SECONDS'] ?? 8)
const ENV = { ...process.env, TZ: 'UTC', UV_THREADPOOL_SIZE: '16' }

/** cores, memory, node and the 1-minute load average when the run started (the machine is shared) */
const machine = (): string =>
  `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)} at start`
const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100
const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'))

function ingestRun(variant: string): { rows: number; rows_per_s: number } {
  const dir = tmp()
  try {
    const out = execFileSync(
      process.execPath,
      [distPath('bench', 'ingest', 'variant.js'), variant, dir, String(INGEST_DAYS)],
      {
        env: ENV,
        encoding: 'utf8'
      }
    )
    return JSON.parse(out.trim().split('\n').at(-1)!) as { rows: number; rows_per_s: number }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function ingest(): Promise<Record<string, unknown>> {
  const variants = ['e2e', 'naive', 'ceiling']
  const runs: Record<string, number[]> = { e2e: [], naive: [], ceiling: [] }
  let rows = 0
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + r) % variants.length]!
      const res = ingestRun(v)
      rows = res.rows
      runs[v]!.push(res.rows_per_s)
      console.log(`ingest round ${r + 1} ${v}: ${res.rows_per_s} rows/s`)
    }
  }
  const m = Object.fromEntries(Object.entries(runs).map(([k, xs]) => [k, median(xs)]))
  return {
    rows_per_run: rows,
    dataset: `demo market, ${INGEST_DAYS} days backfill density, all record kinds, every view attached`,
    runs_rows_per_s: runs,
    median_rows_per_s: m,
    e2e_vs_ceiling: ratio(m['e2e']!, m['ceiling']!),
    e2e_vs_naive: ratio(m['e2e']!, m['naive']!),
    targets: { e2e_vs_ceiling: 0.7, e2e_vs_naive: 2 }
  }
}

function spawnReady(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (ready.test(out)) resolve(child)
    })
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

function serverEnv(dir: string, port: number): NodeJS.ProcessEnv {
  return { ...ENV, DATA_DIR: dir, PORT: String(port), SOURCES: 'none', ADMIN_TOKEN: 'bench-admin-token-0123456789' }
}

async function http(): Promise<Record<string, unknown>> {
  const dir = tmp()
  const ours = await spawnReady([distPath('server', 'main.js')], serverEnv(dir, 19181), /listening/)
  const size = (await (await fetch('http://127.0.0.1:19181/v1/health')).text()).length
  const bare = await spawnReady([distPath('bench', 'http', 'bare-uws.js'), '19182', String(size)], ENV, /ready/)
  const runs: { health: LoadResult[]; bare: LoadResult[] } = { health: [], bare: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const which of r % 2 ? (['bare', 'health'] as const) : (['health', 'bare'] as const)) {
      const url = which === 'health' ? 'http://127.0.0.1:19181/v1/health' : 'http://127.0.0.1:19182/'
      const res = await load(url, 64, HTTP_SECONDS)
      runs[which].push(res)
      console.log(`http round ${r + 1} ${which}: ${res.req_per_s} req/s p99 ${res.p99_ms} ms`)
    }
  }
  await stopChild(ours)
  bare.kill('SIGTERM')
  fs.rmSync(dir, { recursive: true, force: true })
  const h = median(runs.health.map((x) => x.req_per_s))
  const b = median(runs.bare.map((x) => x.req_per_s))
  return {
    body_bytes: size,
    connections: 64,
    seconds_per_run: HTTP_SECONDS,
    median_req_per_s: { health: h, bare_uws: b },
    median_p99_ms: {
      health: median(runs.health.map((x) => x.p99_ms)),
      bare_uws: median(runs.bare.map((x) => x.p99_ms))
    },
    health_vs_bare: ratio(h, b),
    errors: runs.health.reduce((n, x) => n + x.errors + x.non2xx, 0)
  }
}

/** Spawn to the first 200 from /v1/health, ms. */
async function timeToFirst200(cmd: string, args: string[], env: NodeJS.ProcessEnv, port: number): Promise<number> {
  const t0 = performance.now()
  const child = spawn(cmd, args, { env, stdio: 'ignore', cwd: projectRoot() })
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => r.status === 200,
      () => false
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 10))
  }
  const ms = Math.round(performance.now() - t0)
  await stopChild(child)
  return ms
}

/**
 * Restart to the first 200 with an existing data dir, two ways in alternating rounds: the server itself
 * (`node dist/server/main.js`, the reference) and `npm start` as users run it (npm, the up-to-date build
 * check, then exec of the same server). Target: npm start <= 1.5 s.
 */
async function coldStart(): Promise<Record<string, unknown>> {
  const dir = tmp()
  const first = await spawnReady([distPath('server', 'main.js')], serverEnv(dir, 19183), /listening/)
  await stopChild(first)
  const node: number[] = []
  const npm: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const env = serverEnv(dir, 19183)
    const viaNode = () => timeToFirst200(process.execPath, [distPath('server', 'main.js')], env, 19183)
    const viaNpm = () => timeToFirst200('npm', ['start', '--silent'], env, 19183)
    if (r % 2) {
      npm.push(await viaNpm())
      node.push(await viaNode())
    } else {
      node.push(await viaNode())
      npm.push(await viaNpm())
    }
    console.log(`restart round ${r + 1}: node ${node.at(-1)} ms, npm start ${npm.at(-1)} ms`)
  }
  fs.rmSync(dir, { recursive: true, force: true })
  return {
    runs_ms: node,
    median_ms: median(node),
    target_ms: 3000,
    npm_start_runs_ms: npm,
    npm_start_median_ms: median(npm),
    npm_start_target_ms: 1500,
    npm_start_vs_node: ratio(median(npm), median(node))
  }
}

const STEADY_DAYS = Number(process.env['BENCH_STEADY_DAYS'] ?? 30)
/** Live windows sampled after the backfill (each health window is 10 s). */
const STEADY_WINDOWS = 5

async function health(port: number): Promise<Record<string, any>> {
  return (await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json()) as Record<string, any>
}

async function steady(): Promise<Record<string, unknown>> {
  const dir = tmp()
  const env = { ...serverEnv(dir, 19184), SOURCES: 'sim', SIM_BACKFILL_DAYS: String(STEADY_DAYS) }
  const t0 = performance.now()
  const child = await spawnReady([distPath('server', 'main.js')], env, /listening/)
  let h = await health(19184)
  while (h['sources'][0].phase !== 'live') {
    await new Promise((r) => setTimeout(r, 250))
    h = await health(19184)
  }
  const backfillMs = Math.round(performance.now() - t0)
  const rows = h['ingest'].written as number
  const samples: { rss_mb: number; p99: number; max: number }[] = []
  for (let i = 0; i < STEADY_WINDOWS; i++) {
    await new Promise((r) => setTimeout(r, 10_500))
    const p = (await health(19184))['process']
    samples.push({ rss_mb: p.rss_mb, p99: p.event_loop_delay_ms.p99, max: p.event_loop_delay_ms.max })
    console.log(`steady window ${i + 1}: rss ${p.rss_mb} MB, loop p99 ${p.event_loop_delay_ms.p99} ms`)
  }
  await stopChild(child)
  fs.rmSync(dir, { recursive: true, force: true })
  return {
    backfill_days: STEADY_DAYS,
    backfill_rows: rows,
    backfill_ms: backfillMs,
    live_windows: samples,
    max_rss_mb: Math.max(...samples.map((s) => s.rss_mb)),
    // the first window spans the switch from backfill to live (live-state rebuild, catch-up): reported apart
    transition_loop_p99_ms: samples[0]!.p99,
    max_loop_p99_ms: Math.max(...samples.slice(1).map((s) => s.p99)),
    targets: { backfill_ms: 60_000, rss_mb: 1536, loop_p99_ms: 20 }
  }
}

function summary(results: Record<string, any>): string {
  const i = results['ingest']
  const h = results['http']
  const c = results['cold_start']
  return [
    `# Benchmarks (${results['date']}, ${results['machine']}, load generator ${results['load_generator']})`,
    '',
    `Ingest (${i.rows_per_run} rows per run, ${i.dataset}; medians of ${ROUNDS} alternating rounds):`,
    `- e2e ${i.median_rows_per_s.e2e} rows/s, engine ceiling ${i.median_rows_per_s.ceiling}, naive ${i.median_rows_per_s.naive}`,
    `- e2e / ceiling = ${i.e2e_vs_ceiling} (target >= 0.7); e2e / naive = ${i.e2e_vs_naive} (target >= 2)`,
    '',
    `HTTP GET /v1/health vs bare uWS static reply (${h.body_bytes} bytes, 64 connections, ${results['load_generator']} in its own process):`,
    `- health ${h.median_req_per_s.health} req/s (p99 ${h.median_p99_ms.health} ms), bare ${h.median_req_per_s.bare_uws} req/s (p99 ${h.median_p99_ms.bare_uws} ms): ratio ${h.health_vs_bare}`,
    '',
    `Cold start with an existing data dir, spawn to first 200: median ${c.median_ms} ms (runs ${c.runs_ms.join(', ')}; target 3000)`,
    '',
    `Auth + quota on ${results['auth_overhead'].endpoint} (${results['auth_overhead'].body_bytes} bytes): no key ${results['auth_overhead'].median_req_per_s.no_key} req/s, enterprise key ${results['auth_overhead'].median_req_per_s.enterprise_key} req/s: ratio ${results['auth_overhead'].key_vs_no_key} (target >= 0.95); bare uWS same body ${results['auth_overhead'].median_req_per_s.bare_uws_same_body} req/s (chain / bare ${results['auth_overhead'].chain_vs_bare})`,
    '',
    `Options chain rebuild (${results['options_micro'].instruments} instruments): median ${results['options_micro'].chain_rebuild_median_ms} ms (target 5); max pain per expiry (ms): ${JSON.stringify(results['options_micro'].max_pain_median_ms_per_expiry)}`,
    '',
    `Hot reads vs bare uWS same body (64 connections): confirm ${results['read_endpoints'].confirm.median_req_per_s.ours} vs ${results['read_endpoints'].confirm.median_req_per_s.bare_uws_same_body} req/s = ${results['read_endpoints'].confirm.ratio} (p99 ${results['read_endpoints'].confirm.median_p99_ms.ours} ms vs ${results['read_endpoints'].confirm.median_p99_ms.bare_uws_same_body} ms); options chain ${results['read_endpoints'].options_chain.median_req_per_s.ours} vs ${results['read_endpoints'].options_chain.median_req_per_s.bare_uws_same_body} req/s = ${results['read_endpoints'].options_chain.ratio} (p99 ${results['read_endpoints'].options_chain.median_p99_ms.ours} ms vs ${results['read_endpoints'].options_chain.median_p99_ms.bare_uws_same_body} ms); targets ratio >= 0.8, p99 <= 1.25x of bare`,
    '',
    `Binance aggTrade replay (${results['replay'].trades_per_run} trades, adapter + normalizer + batcher into the store): ${results['replay'].median_trades_per_s.replay} trades/s vs engine ceiling ${results['replay'].median_trades_per_s.ceiling} (pre-built TSV, same insert path) = ${results['replay'].replay_vs_ceiling} (target >= 500000 trades/s)`,
    '',
    `Live-state rebuild with a producer writing, median ms by trades of the day: ${JSON.stringify(results['rebuild'].ours.median_rebuild_ms)}; largest / smallest = ${results['rebuild'].ours.ratio_largest_vs_smallest} (target <= 2)`,
    '',
    `Demo market: ${results['steady'].backfill_days}-day backfill (${results['steady'].backfill_rows} rows) live after ${results['steady'].backfill_ms} ms (target 60000);`,
    `then live: max RSS ${results['steady'].max_rss_mb} MB (target 1536), max event-loop lag p99 ${results['steady'].max_loop_p99_ms} ms in steady windows (target 20; ${results['steady'].transition_loop_p99_ms} ms in the window of the switch to live)`,
    ''
  ].join('\n')
}

async function main(): Promise<void> {
  const only = process.argv[2]
  // web dashboard (docs/dashboard.md): cold browser start to interactive vs a static file, static vs health
  if (only === 'web')
    return console.log(JSON.stringify(await (await import('./web/web.js')).webBench(ROUNDS, HTTP_SECONDS), null, 2))
  if (only === 'alerts')
    return console.log(JSON.stringify(await (await import('./alerts/alerts.js')).alertsBench(ROUNDS), null, 2))
  // chain sources (docs/sources.md): decode+collapse+store vs the store ceiling, anvil backfill, live lag
  if (only === 'chain')
    return console.log(JSON.stringify(await (await import('./chain/chain.js')).chainBench(ROUNDS), null, 2))
  // node intelligence (docs/node-intel.md): honeypot via the API vs the bare eth_call; 100 concurrent risk checks
  if (only === 'node')
    return console.log(JSON.stringify(await (await import('./node/node.js')).nodeBench(ROUNDS), null, 2))
  // node intelligence re-checks: owner's transaction confirmed -> TOKEN_RISK_CHANGED received, 1 s blocks
  if (only === 'recheck')
    return console.log(JSON.stringify(await (await import('./node/recheck.js')).recheckBench(), null, 2))
  // accounts (docs/accounts.md): session vs API key on a keyed call, logins/s vs raw scrypt
  if (only === 'accounts')
    return console.log(
      JSON.stringify(await (await import('./accounts/accounts.js')).accountsBench(ROUNDS, HTTP_SECONDS), null, 2)
    )
  // access before bodies (docs/access.md): server RSS under concurrent large unauthenticated/authenticated bodies
  if (only === 'bodies')
    return console.log(JSON.stringify(await (await import('./http/hostile-bodies.js')).hostileBodiesBench(), null, 2))
  // freqtrade layout (docs/export-formats.md): 100 pairs x 1h x 2 years vs the Parquet export of the same rows
  if (only === 'freqtrade') {
    const out = await (await import('./history/freqtrade-export.js')).freqtradeExportBench(ROUNDS)
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'freqtrade-export.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'auth') {
    console.log(JSON.stringify(await authOverhead(ROUNDS, HTTP_SECONDS), null, 2))
    return
  }
  // as_of storage (docs/deployment.md "Disk"): receive times and the known-at ledger vs everything stored
  if (only === 'asof-storage')
    return console.log(JSON.stringify((await import('./asof-storage/asof-storage.js')).asofStorageBench(), null, 2))
  if (only === 'history') {
    const out = await historyBench(ROUNDS)
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'history.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'replay') {
    const out = await replayBench(ROUNDS)
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'replay.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'stream') {
    const out = await streamBench(ROUNDS)
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'stream.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  // venue-to-bot latency (docs/benchmarks.md "Wire"): local venue servers -> Tidewatch -> 1,000 push subscribers
  if (only === 'wire') {
    const out = await (await import('./wire/wire.js')).wireBench()
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'wire.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'import') {
    const out = await importBench(ROUNDS)
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'import.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'webhooks') {
    const out = await webhooksBench(ROUNDS)
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'webhooks.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'asof') {
    const out = await asofBench(ROUNDS, HTTP_SECONDS)
    console.log(JSON.stringify(out, (k, v) => (k === 'runs' ? undefined : v), 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'asof.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'scale') {
    const out = await (await import('./scale/scale.js')).scaleBench()
    console.log(JSON.stringify(out, (k, v) => (k === 'runs' ? undefined : v), 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'scale.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    if (!out['candles_identical']) {
      console.error("scale: the fixed window's candles differ between sizes (see sizes[].candles in scale.json)")
      process.exitCode = 1
    }
    return
  }
  if (only === 'rebuild') {
    const out = await rebuildBench()
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'rebuild.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  // memory soak (docs/benchmarks.md "Soak"): RSS slope under a steady mixed load; BENCH_SOAK_MINUTES, default 60
  if (only === 'soak') {
    const out = await (await import('./soak/soak.js')).soakBench()
    const { samples, ...rest } = out
    console.log(JSON.stringify(rest, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    const label = process.env['BENCH_SOAK_LABEL']
    fs.writeFileSync(path.join(dir, label ? `soak-${label}.json` : 'soak.json'), JSON.stringify(out, null, 2) + '\n')
    return
  }
  if (only === 'start') {
    console.log(JSON.stringify(await coldStart(), null, 2))
    return
  }
  if (only === 'read') {
    const out = {
      date: new Date().toISOString(),
      machine: machine(),
      micro: optionsMicro(),
      whales_micro: whalesMicro(),
      http: await readEndpoints(ROUNDS, HTTP_SECONDS)
    }
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'read.json'), JSON.stringify(out, null, 2) + '\n')
    return
  }
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: machine(),
    load_generator: loadTool(),
    ingest: await ingest(),
    http: await http(),
    cold_start: await coldStart(),
    auth_overhead: await authOverhead(ROUNDS, HTTP_SECONDS),
    options_micro: optionsMicro(),
    whales_micro: whalesMicro(),
    read_endpoints: await readEndpoints(ROUNDS, HTTP_SECONDS),
    history: await historyBench(ROUNDS),
    stream: await streamBench(ROUNDS),
    replay: await replayBench(ROUNDS),
    webhooks: await webhooksBench(ROUNDS),
    rebuild: await rebuildBench(),
    steady: await steady()
  }
  const dir = path.join(projectRoot(), 'bench', 'results')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(results, null, 2) + '\n')
  const text = summary(results)
  fs.writeFileSync(path.join(dir, 'latest.md'), text)
  console.log('\n' + text)
}

void main()
