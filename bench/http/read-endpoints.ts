/**
 * @module
 * Hot read endpoints against a bare uWebSockets.js server replying with the same bytes, same run,
 * alternating rounds, 64 connections from a separate autocannon process: `GET /v1/confirm?symbol=BTC&
 * direction=long` and `GET /v1/options/chain` (enterprise key: counted, never limited). The server runs the
 * demo market with one day of history so the live state is realistic.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { distPath } from '../../engine/paths.js'
import { load, type LoadResult } from './load.js'

const ADMIN = 'bench-admin-token-0123456789'
const PORT = 19201
const BARE_PORT = 19202
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function until(ok: () => Promise<boolean>): Promise<void> {
  while (!(await ok().catch(() => false))) await new Promise((r) => setTimeout(r, 100))
}

export async function readEndpoints(rounds: number, seconds: number): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'))
  const env = {
    ...process.env,
    TZ: 'UTC',
    DATA_DIR: dir,
    PORT: String(PORT),
    SIM_BACKFILL_DAYS: '1',
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'warn'
  }
  const server = spawn(process.execPath, [distPath('server', 'main.js')], { env, stdio: 'ignore' })
  const base = `http://127.0.0.1:${PORT}`
  await until(async () => {
    const h = (await (await fetch(`${base}/v1/health`)).json()) as { sources: { phase?: string }[] }
    return h.sources[0]?.phase === 'live'
  })
  const { key } = (await (
    await fetch(`${base}/v1/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}` },
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
  server.kill('SIGTERM')
  await new Promise((r) => server.once('exit', r))
  fs.rmSync(dir, { recursive: true, force: true })
  return out
}
