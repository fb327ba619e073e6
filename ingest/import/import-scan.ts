/**
 * @module
 * Runs the byte scan of one import file (scan-file.ts: the first bad line of a file the engine refused) in
 * a worker thread and gives its result back as if it had run here: the same `ImportError` (file, line,
 * reason), the same totals and slices. `signal` stops the worker (the scan is thrown away). Progress
 * arrives about every 200 ms. The thread is one of the process's pool (workers/worker-pool.ts).
 */
import { distPath } from '../../engine/paths.js'
import type { ScanToMain } from '../workers/import-scan-protocol.js'
import { workerPool, type PooledWorker } from '../workers/worker-pool.js'
import { ImportError } from './import-error.js'
import type { ScanRequest, ScanResult } from './scan-file.js'

export async function scanInWorker(
  req: ScanRequest,
  progress: (fraction: number, rows: number) => void,
  signal?: AbortSignal
): Promise<ScanResult> {
  signal?.throwIfAborted()
  let outcome!: { resolve: (r: ScanResult) => void; reject: (e: unknown) => void }
  const result = new Promise<ScanResult>((resolve, reject) => (outcome = { resolve, reject }))
  let worker: PooledWorker<never> | undefined
  let settled = false
  const settle = (fn: () => void): void => {
    if (settled) return
    settled = true
    signal?.removeEventListener('abort', onAbort)
    // settled once the worker is gone: it writes no slice after the caller removed their directory
    if (worker) void worker.terminate().then(fn, fn)
    else fn()
  }
  const onAbort = (): void => settle(() => outcome.reject(signal!.reason))
  signal?.addEventListener('abort', onAbort)
  try {
    worker = await workerPool.spawn<never, ScanToMain>(
      { file: distPath('ingest', 'workers', 'import-scan-worker.js'), workerData: req },
      {
        message: (msg) => {
          if (msg.type === 'progress') {
            if (!settled) progress(msg.fraction, msg.rows)
          } else if (msg.type === 'done') settle(() => outcome.resolve(msg.result))
          else {
            const e = msg.error
            if (e.kind === 'import') settle(() => outcome.reject(new ImportError(e.file, e.line, e.reason)))
            else {
              const err = Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code })
              settle(() => outcome.reject(err))
            }
          }
        },
        end: (how) => {
          const err = how.kind === 'error' ? how.error : new Error(`the import read worker exited (code ${how.code})`)
          settle(() => outcome.reject(err))
        }
      }
    )
  } catch (err) {
    settle(() => outcome.reject(err))
  }
  // stopped while waiting for a thread: the worker started after is not needed
  if (settled && worker && !worker.stopping) void worker.terminate()
  return result
}
