/**
 * @module
 * The http group of `npm run bench`: GET /v1/health req/s vs a bare uWebSockets.js static reply of the same
 * size, load from one wrk thread in its own process (load.ts), 64 connections, alternating rounds.
 */
import fs from 'node:fs'
import { distPath } from '../../engine/paths.js'
import { load, type LoadResult } from './load.js'
import { median } from '../stats.js'
import { ENV, HTTP_SECONDS, ROUNDS, ratio, tmp } from '../run-settings.js'
import { serverEnv, spawnReady, stopChild } from '../server-process.js'

export async function http(): Promise<Record<string, unknown>> {
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
