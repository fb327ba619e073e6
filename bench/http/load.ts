/**
 * @module
 * Runs the load generator in its own process (it must not share the server's event loop) and returns
 * requests/s and latency percentiles. wrk (Debian package `wrk`, written in C) is used when installed: on
 * 2 cores a Node load generator like autocannon saturates a core itself and caps what any server can
 * show; autocannon (an npm dev dependency) is the fallback so the benchmarks run on a fresh clone.
 */
import { execFile, execFileSync } from 'node:child_process'
import path from 'node:path'
import { projectRoot } from '../../engine/paths.js'

export interface LoadResult {
  readonly req_per_s: number
  /** requests completed in the round */
  readonly requests: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly errors: number
  readonly non2xx: number
}

let wrk: boolean | undefined

/** Which load generator runs: 'wrk' when installed, else 'autocannon'. */
export function loadTool(): 'wrk' | 'autocannon' {
  if (wrk === undefined) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' })
      wrk = true
    } catch (err) {
      // wrk --version exits 1 after printing its version: it exists unless the error is ENOENT
      wrk = (err as NodeJS.ErrnoException).code !== 'ENOENT'
    }
  }
  return wrk ? 'wrk' : 'autocannon'
}

/** wrk prints durations as 812.00us, 1.44ms or 1.02s. */
function ms(text: string): number {
  const m = /([\d.]+)(us|ms|s)\b/.exec(text)
  if (!m) return Number.NaN
  const v = Number(m[1])
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v
}

function loadWrk(
  url: string,
  connections: number,
  seconds: number,
  headers: Record<string, string>
): Promise<LoadResult> {
  const hdrs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`])
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...hdrs, url]
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { maxBuffer: 1024 * 1024 }, (err, stdout) => {
      if (err) return reject(err)
      const pct = (p: string): number => ms(stdout.split('\n').find((l) => l.trim().startsWith(p)) ?? '')
      const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)
      const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
      resolve({
        req_per_s: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 'NaN')),
        requests: Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 'NaN'),
        p50_ms: pct('50%'),
        p99_ms: pct('99%'),
        errors: errors ? errors.slice(1).reduce((n, x) => n + Number(x), 0) : 0,
        non2xx: non2xx ? Number(non2xx[1]) : 0
      })
    })
  })
}

export function load(
  url: string,
  connections = 64,
  seconds = 8,
  headers: Record<string, string> = {}
): Promise<LoadResult> {
  if (loadTool() === 'wrk') return loadWrk(url, connections, seconds, headers)
  const bin = path.join(projectRoot(), 'node_modules', 'autocannon', 'autocannon.js')
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        bin,
        '-c',
        String(connections),
        '-d',
        String(seconds),
        '-j',
        ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
        url
      ],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        if (err) return reject(err)
        const r = JSON.parse(stdout) as {
          requests: { average: number; total: number }
          latency: { p50: number; p99: number }
          errors: number
          non2xx: number
        }
        resolve({
          req_per_s: Math.round(r.requests.average),
          requests: r.requests.total,
          p50_ms: r.latency.p50,
          p99_ms: r.latency.p99,
          errors: r.errors,
          non2xx: r.non2xx
        })
      }
    )
  })
}
