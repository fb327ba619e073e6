import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * A fresh empty directory under the OS temp dir, removed by the returned cleanup. The removal retries
 * (Node's `maxRetries`: on ENOTEMPTY/EBUSY, 100 ms apart, linear back-off) while something still writes in
 * the tree: a server child whose stop has not ended yet, or an embedded engine's background thread.
 */
export function tmpDir(prefix = 'tidewatch-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) }
}

/** A short random suffix for per-test table names (clickhouse-js `guid()` pattern). */
export function guid(): string {
  return Math.random().toString(36).slice(2, 10)
}
