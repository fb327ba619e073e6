/**
 * @module
 * The cold-start group against another build (`BENCH_START_REF=<root of another built checkout> npm run
 * bench -- start`): this build's server and the reference's, each restarted on a data dir of its own that
 * its own first start created (`SOURCES=none`), in alternating rounds. Each restart is split into its
 * steps, ms from the spawn: `listening` (the server's log line), `first_200` (the first 200 from
 * /v1/health) and `ready` (the first /v1/health with `ready: true`, server/readiness.ts); `cpu_ready_ms` is
 * the process's CPU time (user + system, all threads) at `ready`, read from /proc: on a busy machine it
 * moves less than the wall times. Ratios are this build over the reference.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { distPath, projectRoot } from '../../engine/paths.js'
import { freePort } from '../free-port.js'
import { median } from '../stats.js'
import { ROUNDS, ratio, tmp } from '../run-settings.js'
import { serverEnv, spawnReady, stopChild } from '../server-process.js'

/** One restart's steps, ms from the spawn, and its CPU time at `ready`, ms. */
interface Restart {
  readonly listening: number
  readonly first_200: number
  readonly ready: number
  readonly cpu_ready_ms: number
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux). */
const USER_HZ = 100

/** CPU time of a process so far, ms (user + system, all its threads). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // fields from the 3rd (state) on
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ // utime, stime: fields 14 and 15
}

/** Restarts the server of `root` on `dir` until /v1/health says ready; the steps' times. */
async function restart(root: string, dir: string, port: number): Promise<Restart> {
  const t0 = performance.now()
  const child = spawn(process.execPath, [path.join(root, 'dist', 'server', 'main.js')], {
    env: serverEnv(dir, port),
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore']
  })
  let out = ''
  let listening: number | undefined
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString()
    if (listening === undefined && out.includes('listening')) listening = performance.now() - t0
  })
  let first200: number | undefined
  let ready: number | undefined
  while (ready === undefined) {
    const body = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      async (r) => (r.status === 200 ? ((await r.json()) as { ready?: boolean }) : null),
      () => null
    )
    if (body !== null) first200 ??= performance.now() - t0
    if (body?.ready === true) ready = performance.now() - t0
    else await new Promise((r) => setTimeout(r, 5))
  }
  const cpu = cpuMs(child.pid!)
  await stopChild(child)
  return {
    listening: Math.round(listening ?? ready),
    first_200: Math.round(first200!),
    ready: Math.round(ready),
    cpu_ready_ms: cpu
  }
}

const STEPS = ['listening', 'first_200', 'ready', 'cpu_ready_ms'] as const

/** This build against the build at `refRoot`, ROUNDS alternating restarts each. */
export async function coldStartAgainst(refRoot: string): Promise<Record<string, unknown>> {
  const roots = { this: projectRoot(), ref: path.resolve(refRoot) }
  if (!fs.existsSync(path.join(roots.ref, 'dist', 'server', 'main.js'))) {
    throw new Error(`BENCH_START_REF=${refRoot} has no dist/server/main.js: build it first`)
  }
  const port = await freePort()
  const dirs = { this: tmp(), ref: tmp() }
  for (const k of ['this', 'ref'] as const) {
    // the first start creates the data dir (migrations); the rounds restart on it
    const main = k === 'this' ? distPath('server', 'main.js') : path.join(roots.ref, 'dist', 'server', 'main.js')
    await stopChild(await spawnReady([main], serverEnv(dirs[k], port), /listening/))
  }
  const runs: Record<'this' | 'ref', Restart[]> = { this: [], ref: [] }
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of r % 2 ? (['ref', 'this'] as const) : (['this', 'ref'] as const)) {
      runs[k].push(await restart(roots[k], dirs[k], port))
    }
    console.log(
      `restart round ${r + 1}: this ${JSON.stringify(runs.this.at(-1))} ref ${JSON.stringify(runs.ref.at(-1))}`
    )
  }
  for (const dir of Object.values(dirs)) fs.rmSync(dir, { recursive: true, force: true })
  const medians = (k: 'this' | 'ref') => Object.fromEntries(STEPS.map((s) => [s, median(runs[k].map((x) => x[s]))]))
  const m = { this: medians('this'), ref: medians('ref') }
  return {
    ref_root: roots.ref,
    runs,
    median_ms: m,
    this_vs_ref: Object.fromEntries(STEPS.map((s) => [s, ratio(m.this[s]!, m.ref[s]!)]))
  }
}
