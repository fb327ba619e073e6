/**
 * @module
 * Hot read endpoints against a bare uWebSockets.js server replying with the same bytes, same run,
 * alternating rounds, 64 connections from a separate autocannon process: `GET /v1/confirm?symbol=BTC&
 * direction=long` and `GET /v1/options/chain` (enterprise key: counted, never limited). The server runs the
 * demo market with one day of history so the live state is realistic.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { load, type LoadResult } from './load.js'
import { median } from '../stats.js'
import { BENCH_ADMIN, startBenchServer } from './bench-server.js'

const PORT = 19201
const BARE_PORT = 19202
/** unmeasured load before the rounds of each endpoint, s */
const WARMUP_SECONDS = 3

async function until(ok: () => Promise<boolean>): Promise<void> {
  while (!(await ok().catch(() => false))) await new Promise((r) => setTimeout(r, 100))
}

export async function readEndpoints(rounds: number, seconds: number): Promise<Record<string, unknown>> {
  const server = await startBenchServer(PORT, { SIM_BACKFILL_DAYS: '1' }, (h) => h.sources[0]?.phase === 'live')
  const { base, dir } = server
  const { key } = (await (
    await fetch(`${base}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_ADMIN}` },
      body: '{"plan":"enterprise"}'
    })
  ).json()) as { key: string }
  const headers = { 'x-api-key': key }
  const out: Record<string, unknown> = {}
  for (const [name, url] of [
    ['confirm', `${base}/v1/confirm?symbol=BTC&direction=long`],
    ['options_chain', `${base}/v1/options/chain?currency=BTC`]
  ] as const) {
    const body = await (await fetch(url, { headers })).text()
    const file = path.join(dir, `${name}.json`)
    fs.writeFileSync(file, body)
    const bare = spawn(process.execPath, [distPath('bench', 'http', 'bare-uws.js'), String(BARE_PORT), file], {
      stdio: 'ignore'
    })
    await until(async () => (await fetch(`http://127.0.0.1:${BARE_PORT}/`)).ok)
    // warm-up, discarded: JIT compilation of the request path, and the first background merges of the
    // demo backfill, would otherwise land in the first measured round only
    await load(url, 64, WARMUP_SECONDS, headers)
    await load(`http://127.0.0.1:${BARE_PORT}/`, 64, WARMUP_SECONDS)
    const runs: { ours: LoadResult[]; bare: LoadResult[] } = { ours: [], bare: [] }
    for (let r = 0; r < rounds; r++) {
      for (const which of r % 2 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const)) {
        const res =
          which === 'ours'
            ? await load(url, 64, seconds, headers)
            : await load(`http://127.0.0.1:${BARE_PORT}/`, 64, seconds)
        runs[which].push(res)
        console.log(`${name} round ${r + 1} ${which}: ${res.req_per_s} req/s p99 ${res.p99_ms} ms`)
      }
    }
    bare.kill('SIGTERM')
    await new Promise((r) => bare.once('exit', r))
    const ours = median(runs.ours.map((x) => x.req_per_s))
    const ref = median(runs.bare.map((x) => x.req_per_s))
    out[name] = {
      body_bytes: body.length,
      median_req_per_s: { ours, bare_uws_same_body: ref },
      ratio: Math.round((ours / ref) * 100) / 100,
      median_p99_ms: {
        ours: median(runs.ours.map((x) => x.p99_ms)),
        bare_uws_same_body: median(runs.bare.map((x) => x.p99_ms))
      },
      errors: runs.ours.reduce((n, x) => n + x.errors + x.non2xx, 0),
      targets: { ratio: 0.6, p99_ms: 2 }
    }
  }
  await server.stop()
  return out
}
