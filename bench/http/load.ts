/**
 * @module
 * Runs autocannon in its own process (the load generator must not share the server's event loop) and
 * returns requests/s and latency percentiles.
 */
import { execFile } from 'node:child_process'
import path from 'node:path'
import { projectRoot } from '../../engine/paths.js'

export interface LoadResult {
  readonly req_per_s: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly errors: number
  readonly non2xx: number
}

export function load(
  url: string,
  connections = 64,
  seconds = 8,
  headers: Record<string, string> = {}
): Promise<LoadResult> {
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
          requests: { average: number }
          latency: { p50: number; p99: number }
          errors: number
          non2xx: number
        }
        resolve({
          req_per_s: Math.round(r.requests.average),
          p50_ms: r.latency.p50,
          p99_ms: r.latency.p99,
          errors: r.errors,
          non2xx: r.non2xx
        })
      }
    )
  })
}
