/**
 * @module
 * Measurement helpers of the history benchmarks: a server process's CPU seconds and RSS (from /proc), a
 * download into a file (optionally paced), the row count of a Parquet file from its footer, and the
 * settling of a stopped data dir (settle-store.ts).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import { distPath } from '../../engine/paths.js'
import { statCpuMs } from '../http/cpu.js'

export const round = (x: number): number => Math.round(x * 100) / 100

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`) / 1000
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024
}

/**
 * Samples the server's RSS every 50 ms while `work` runs; returns the work's result, the peak, and the
 * server's CPU seconds spent meanwhile.
 */
export async function withRss<T>(
  pid: number,
  work: () => Promise<T>
): Promise<{ value: T; before: number; peak: number; cpuS: number }> {
  const before = rssMb(pid)
  const cpu0 = cpuSeconds(pid)
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50)
  try {
    const value = await work()
    return { value, before, peak: Math.max(peak, rssMb(pid)), cpuS: round(cpuSeconds(pid) - cpu0) }
  } finally {
    clearInterval(timer)
  }
}

/** Downloads `url` into `file`; with `mbPerS`, reads are paused so the pace stays under it. */
export function download(
  url: string,
  key: string,
  file: string,
  mbPerS?: number
): Promise<{ bytes: number; ms: number; firstByteMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const out = fs.createWriteStream(file)
    let firstByteMs = 0
    http
      .get(url, { headers: { 'x-api-key': key } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`export answered ${res.statusCode}`))
        let bytes = 0
        // the response stays paused while the disk or the pace holds it; it resumes when neither does
        let holds = 0
        const hold = () => {
          if (holds++ === 0) res.pause()
        }
        const release = () => {
          if (--holds === 0) res.resume()
        }
        res.on('data', (chunk: Buffer) => {
          if (bytes === 0) firstByteMs = performance.now() - t0
          bytes += chunk.length
          if (!out.write(chunk)) {
            hold()
            out.once('drain', release)
          }
          if (mbPerS) {
            const due = (bytes / (mbPerS * 1_048_576)) * 1000 - (performance.now() - t0)
            if (due > 5) {
              hold()
              setTimeout(release, due)
            }
          }
        })
        res.on('end', () => out.end(() => resolve({ bytes, ms: performance.now() - t0, firstByteMs })))
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

/** Row count from the Parquet footer (parquetjs-lite reads the footer of any version; no decoding). */
export async function parquetRowCount(file: string): Promise<number> {
  const parquet = (await import('parquetjs-lite')).default as unknown as {
    ParquetEnvelopeReader: {
      openFile(p: string): Promise<{
        readFooter(): Promise<{ num_rows: number | bigint | { toNumber(): number } }>
        close(): Promise<void>
      }>
    }
  }
  const envelope = await parquet.ParquetEnvelopeReader.openFile(file)
  const meta = await envelope.readFooter()
  await envelope.close()
  const n = meta.num_rows
  return typeof n === 'object' ? n.toNumber() : Number(n)
}

/**
 * Opens the stopped dir once and waits for the engine to remove the outdated parts the run left
 * (settle-store.ts), so that no process opened on its copies does it during a measured export.
 */
export function settleStore(dir: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, [distPath('bench', 'history', 'settle-store.js'), dir], {
    env: { ...process.env, TZ: 'UTC' },
    encoding: 'utf8'
  })
  if (r.status !== 0) throw new Error(`settle-store exited ${r.status}: ${r.stderr.slice(0, 300)}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
}
