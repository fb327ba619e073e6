/**
 * @module
 * The cold-start group of `npm run bench` (`npm run bench -- start`): spawn to the first 200 from
 * /v1/health with an existing data dir, the server alone and through `npm start`; with `BENCH_START_REF`
 * (the root of another built checkout) also this build's restart against that one's, step by step
 * (cold-start-ref.ts).
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { distPath, projectRoot } from '../../engine/paths.js'
import { median } from '../stats.js'
import { ROUNDS, ratio, tmp } from '../run-settings.js'
import { serverEnv, spawnReady, stopChild } from '../server-process.js'
import { coldStartAgainst } from './cold-start-ref.js'

/** BENCH_START_REF: the root of another built checkout to compare restarts with (unset: none). */
const REF_ROOT = process.env['BENCH_START_REF']

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
export async function coldStart(): Promise<Record<string, unknown>> {
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
    npm_start_vs_node: ratio(median(npm), median(node)),
    ...(REF_ROOT && { against_ref: await coldStartAgainst(REF_ROOT) })
  }
}
