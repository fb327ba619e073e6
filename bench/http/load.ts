/**
 * @module
 * The HTTP load generator: wrk (Debian package `wrk`, written in C), in its own process, one thread
 * (`-t1`), returning requests/s and latency percentiles from its `--latency` output.
 *
 * Why wrk: on 2 cores a Node load generator (autocannon) saturates a core by itself and caps every server
 * at its own pace, so a server's overhead never shows (0.96-0.99x of bare uWS under autocannon, 0.66-0.70x
 * under wrk, same servers). Why one thread: the servers measured run their request path on one thread
 * (uWS and every handler share Node's main thread); one wrk thread keeps the other core for the server,
 * while two would contend with it for both cores and the figure would measure the scheduler. Each round
 * also reports wrk's own CPU share, so a round where the generator was the bottleneck (share near 1) is
 * visible.
 *
 * When `wrk` is not on PATH the bench installs it (`apt-get install -y wrk`) if it runs as root on a
 * Debian/Ubuntu machine, and otherwise stops with a message saying how to install it.
 */
import { execFileSync, spawn } from 'node:child_process'
import { statCpuMs } from './cpu.js'

export interface LoadResult {
  readonly req_per_s: number
  /** requests completed in the round */
  readonly requests: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly errors: number
  readonly non2xx: number
  /** wrk's CPU time / wall time over the round (1 = one core busy: the generator was the limit) */
  readonly generator_cpu_share: number
}

/** The one load generator; kept as a function so results name it. */
export function loadTool(): 'wrk' {
  ensureWrk()
  return 'wrk'
}

let present = false

function wrkOnPath(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return true
  } catch (err) {
    // wrk --version exits 1 after printing its version: it exists unless the error is ENOENT
    return (err as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

const HOW_TO_INSTALL =
  'the HTTP benchmarks need wrk (a C load generator): install it with `sudo apt-get install wrk` ' +
  '(Debian/Ubuntu), `brew install wrk` (macOS) or from https://github.com/wg/wrk, then run the bench again'

/** wrk on PATH, installed with apt-get when missing and running as root; throws with how to install otherwise. */
export function ensureWrk(): void {
  if (present || (present = wrkOnPath())) return
  const root = process.getuid?.() === 0
  if (!root) throw new Error(HOW_TO_INSTALL)
  console.log('wrk not found: apt-get install -y wrk')
  const install = (): boolean => {
    try {
      execFileSync('apt-get', ['install', '-y', 'wrk'], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
      })
      return true
    } catch {
      return false
    }
  }
  // a fresh image may have no package lists yet: update once and retry
  const ok = install() || (safeRun('apt-get', ['update']) && install())
  if (!ok || !(present = wrkOnPath())) throw new Error(`apt-get could not install wrk; ${HOW_TO_INSTALL}`)
}

function safeRun(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'inherit' })
    return true
  } catch {
    return false
  }
}

/** wrk prints durations as 812.00us, 1.44ms, 1.02s or 2.00m. */
export function wrkDurationMs(text: string): number {
  const m = /([\d.]+)(us|ms|s|m)\b/.exec(text)
  if (!m) return Number.NaN
  const v = Number(m[1])
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : m[2] === 'm' ? v * 60_000 : v
}

/** The figures of one `wrk --latency` report (its stdout). */
export function parseWrk(stdout: string): Omit<LoadResult, 'generator_cpu_share'> {
  // the "Latency Distribution" lines: "     50%  301.00us"
  const pct = (p: string): number =>
    wrkDurationMs(
      stdout
        .split('\n')
        .find((l) => l.trim().startsWith(p))
        ?.trim()
        .slice(p.length) ?? ''
    )
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
  return {
    req_per_s: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 'NaN')),
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 'NaN'),
    p50_ms: pct('50%'),
    p99_ms: pct('99%'),
    errors: errors ? errors.slice(1).reduce((n, x) => n + Number(x), 0) : 0,
    non2xx: non2xx ? Number(non2xx[1]) : 0
  }
}

/** `connections` connections for `seconds` s against `url` from one wrk thread. */
export function load(
  url: string,
  connections = 64,
  seconds = 8,
  headers: Record<string, string> = {}
): Promise<LoadResult> {
  ensureWrk()
  const hdrs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`])
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...hdrs, url]
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const t0 = performance.now()
    let cpuMs = 0
    let cpuAtMs = 0
    // wrk's CPU from /proc, sampled until it exits (the last sample is at most 250 ms before its end)
    const sample = setInterval(() => {
      const v = statCpuMsOrNaN(child.pid!)
      if (Number.isFinite(v)) {
        cpuMs = v
        cpuAtMs = performance.now() - t0
      }
    }, 250)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', (err) => {
      clearInterval(sample)
      reject(err)
    })
    child.on('exit', (code) => {
      clearInterval(sample)
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${stderr || stdout}`))
      const share = cpuAtMs > 0 ? Math.round((cpuMs / cpuAtMs) * 100) / 100 : Number.NaN
      resolve({ ...parseWrk(stdout), generator_cpu_share: share })
    })
  })
}

function statCpuMsOrNaN(pid: number): number {
  try {
    return statCpuMs(`/proc/${pid}/stat`)
  } catch {
    return Number.NaN
  }
}
