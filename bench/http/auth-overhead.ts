/**
 * @module
 * Cost of API-key auth plus quota accounting on a hot endpoint: `GET /v1/options/chain` (a ~700-instrument
 * BTC chain from the demo market, loaded through the admin API) requested without a key (public path: the
 * per-IP token bucket, its limit raised out of the way) and with an enterprise key (key lookup, constant-
 * time secret check, plan check, quota increment, no rate headers since the plan is unlimited), alternating
 * rounds in one run. The same body from a bare uWebSockets.js server is the reference for the endpoint
 * itself.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { createSimMarket } from '../../ingest/sources/sim/sim-market.js'
import { load, type LoadResult } from './load.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from './bench-server.js'

const PORT = 19191
const BARE_PORT = 19192

function waitFor(child: ChildProcess, re: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (re.test(out)) resolve()
    })
    child.on('exit', (c) => reject(new Error(`exited ${c}: ${out}`)))
  })
}

async function chainBody(): Promise<string> {
  const now = Date.now()
  const quotes = []
  for (const chunk of createSimMarket(42).generate(now - 3_600_000, now, 'backfill')) {
    for (const r of chunk) if (r.kind === 'option_quote' && r.instrument.startsWith('BTC-')) quotes.push(r)
  }
  return quotes.map(({ kind: _k, ...q }) => JSON.stringify(q)).join('\n') + '\n'
}

export async function authOverhead(rounds: number, seconds: number): Promise<Record<string, unknown>> {
  // the public throttle's limit is raised out of the way: the keyless path is measured, not its 429s
  const server = await startBenchServer(PORT, { SOURCES: 'none', PUBLIC_RATE_PER_MIN: '1000000000' })
  const { base, dir } = server
  const auth = { authorization: `Bearer ${BENCH_ADMIN}` }
  await fetch(`${base}/v1/admin/ingest/option_quote`, { method: 'POST', headers: auth, body: await chainBody() })
  const created = (await (
    await fetch(`${base}/v1/admin/keys`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"plan":"enterprise","name":"bench"}'
    })
  ).json()) as { key: string }
  const body = await (await fetch(`${base}/v1/options/chain`)).text()
  const file = path.join(dir, 'chain.json')
  fs.writeFileSync(file, body)
  const bare = spawn(process.execPath, [distPath('bench', 'http', 'bare-uws.js'), String(BARE_PORT), file], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  await waitFor(bare, /ready/)
  const runs: Record<'no_key' | 'key' | 'bare', LoadResult[]> = { no_key: [], key: [], bare: [] }
  const order = ['no_key', 'key', 'bare'] as const
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < order.length; i++) {
      const which = order[(i + r) % order.length]!
      const url = which === 'bare' ? `http://127.0.0.1:${BARE_PORT}/` : `${base}/v1/options/chain`
      const res = await load(url, 64, seconds, which === 'key' ? { 'x-api-key': created.key } : {})
      runs[which].push(res)
      console.log(
        `auth round ${r + 1} ${which}: ${res.req_per_s} req/s p99 ${res.p99_ms} ms (errors ${res.errors + res.non2xx})`
      )
    }
  }
  bare.kill('SIGTERM')
  await server.stop()
  const m = (k: keyof typeof runs): number => median(runs[k].map((x) => x.req_per_s))
  return {
    endpoint: 'GET /v1/options/chain',
    body_bytes: body.length,
    median_req_per_s: { no_key: m('no_key'), enterprise_key: m('key'), bare_uws_same_body: m('bare') },
    median_p99_ms: {
      no_key: median(runs.no_key.map((x) => x.p99_ms)),
      enterprise_key: median(runs.key.map((x) => x.p99_ms)),
      bare_uws_same_body: median(runs.bare.map((x) => x.p99_ms))
    },
    key_vs_no_key: Math.round((m('key') / m('no_key')) * 1000) / 1000,
    chain_vs_bare: Math.round((m('no_key') / m('bare')) * 100) / 100,
    errors: [...runs.no_key, ...runs.key].reduce((n, x) => n + x.errors + x.non2xx, 0),
    target: 'key_vs_no_key >= 0.95 (auth + quota add at most 5%)'
  }
}
