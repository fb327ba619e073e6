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
 *   `npm start` (`npm run bench -- start` runs only this one); with BENCH_START_REF, against another build,
 *   step by step (listening, first 200, ready).
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
 * - first-export: the first export after a restart on copies of one filled data dir, two server
 *   environments alternating (bench/scale/first-export.ts); first-export-engine: the engine's counters
 *   around the first exports in process (bench/scale/first-export-engine.ts).
 * - steady demo feed: time to backfill SIM_BACKFILL_DAYS (default 30) on first start, then RSS and
 *   event-loop lag p99 from /v1/health over the first live windows.
 */
import fs from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../engine/paths.js'
import { loadTool } from './http/load.js'
import { authOverhead } from './http/auth-overhead.js'
import { readEndpoints } from './http/read-endpoints.js'
import { optionsMicro } from './micro/options-chain.js'
import { whalesMicro } from './micro/whales.js'
import { historyBench } from './history/history.js'
import { importBench } from './import/import-bench.js'
import { streamBench } from './stream/stream.js'
import { replayBench } from './replay/replay.js'
import { webhooksBench } from './webhooks/webhooks.js'
import { rebuildBench } from './rebuild/rebuild.js'
import { asofBench } from './asof/asof.js'
import { HTTP_SECONDS, ROUNDS, machine } from './run-settings.js'
import { ingest } from './ingest/ingest-bench.js'
import { http } from './http/health-bench.js'
import { coldStart } from './http/cold-start.js'
import { steady } from './steady/steady.js'
import { summary } from './summary.js'

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
  // node intelligence: the server's CPU per honeypot check, by phase, one process against anvil
  // webhooks: the sender's CPU per delivery by stage (body, signatures, rows stored with and without the payload)
  if (only === 'webhook-stages')
    return console.log(JSON.stringify(await (await import('./webhooks/stages.js')).stagesBench(ROUNDS), null, 2))
  // node intelligence: this build's honeypot check through the API against another build's (BENCH_NODE_REF)
  if (only === 'node-ab')
    return console.log(JSON.stringify(await (await import('./node/ab.js')).nodeAbBench(), null, 2))
  // the realistic export from this build's server and another build's (BENCH_EXPORT_REF), interleaved
  if (only === 'export-ab') {
    const out = await (await import('./history/export-ab.js')).exportAbBench(Number(process.env['BENCH_ROUNDS'] ?? 10))
    console.log(JSON.stringify(out, null, 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'export-ab.json'),
      JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n'
    )
    return
  }
  if (only === 'node-cpu')
    return console.log(JSON.stringify(await (await import('./node/check-cpu.js')).checkCpuBench(ROUNDS), null, 2))
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
  if (only === 'first-export-engine') {
    const out = await (await import('./scale/first-export-engine.js')).firstExportEngineBench()
    console.log(JSON.stringify(out, null, 2))
    return
  }
  if (only === 'first-export') {
    const out = await (await import('./scale/first-export.js')).firstExportBench()
    console.log(JSON.stringify(out, (k, v) => (k === 'runs' ? undefined : v), 2))
    const dir = path.join(projectRoot(), 'bench', 'results')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'first-export.json'),
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
