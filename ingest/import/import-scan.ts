/**
 * @module
 * Runs the byte scan of one import file (scan-file.ts: the first bad line of a file the engine refused) in
 * a worker thread and gives its result back as if it had run here: the same `ImportError` (file, line,
 * reason), the same totals and slices. `signal` stops the worker (the scan is thrown away). Progress
 * arrives about every 200 ms.
 */
import { Worker } from 'node:worker_threads'
import { distPath } from '../../engine/paths.js'
import type { ScanToMain } from '../workers/import-scan-protocol.js'
import { ImportError } from './import-error.js'
import type { ScanRequest, ScanResult } from './scan-file.js'

export function scanInWorker(
  req: ScanRequest,
  progress: (fraction: number, rows: number) => void,
  signal?: AbortSignal
): Promise<ScanResult> {
  signal?.throwIfAborted()
  const worker = new Worker(distPath('ingest', 'workers', 'import-scan-worker.js'), { workerData: req })
  return new Promise<ScanResult>((resolve, reject) => {
    let settled = false
    const settle = (fn: () => void): void => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', onAbort)
      // settled once the worker is gone: it writes no slice after the caller removed their directory
      void worker.terminate().then(fn, fn)
    }
    const onAbort = (): void => settle(() => reject(signal!.reason))
    signal?.addEventListener('abort', onAbort)
    worker.on('message', (msg: ScanToMain) => {
      if (msg.type === 'progress') {
        if (!settled) progress(msg.fraction, msg.rows)
      } else if (msg.type === 'done') settle(() => resolve(msg.result))
      else {
        const e = msg.error
        if (e.kind === 'import') settle(() => reject(new ImportError(e.file, e.line, e.reason)))
        else settle(() => reject(Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code })))
      }
    })
    worker.on('error', (err) => settle(() => reject(err)))
    worker.on('exit', (code) => settle(() => reject(new Error(`the import read worker exited (code ${code})`))))
  })
}
