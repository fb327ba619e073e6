/**
 * @module
 * Worker thread of an import's read phase: runs `scanFile` (import/scan-file.ts) for one file and posts
 * its progress and result. Request (workerData): a `ScanRequest`. Messages: `progress` (about every
 * 200 ms), then `done` with the `ScanResult` or `failed` with the error as plain data (an `ImportError`
 * keeps its file, line and reason; others their message and code), rebuilt by import-scan.ts.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { ImportError } from '../import/import-error.js'
import { scanFile, type ScanRequest } from '../import/scan-file.js'
import type { ScanToMain } from './import-scan-protocol.js'

const port = parentPort!

function post(msg: ScanToMain): void {
  port.postMessage(msg)
}

scanFile(workerData as ScanRequest, (fraction, rows) => post({ type: 'progress', fraction, rows })).then(
  (result) => post({ type: 'done', result }),
  (err: unknown) => {
    if (err instanceof ImportError) {
      post({ type: 'failed', error: { kind: 'import', file: err.file, line: err.line, reason: err.reason } })
    } else {
      const e = err as NodeJS.ErrnoException
      post({ type: 'failed', error: { kind: 'other', message: e?.message ?? String(err), code: e?.code } })
    }
  }
)
