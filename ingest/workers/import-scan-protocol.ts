/**
 * @module
 * Messages of the import's read-phase worker (import-scan-worker.ts) to the main thread
 * (import/import-scan.ts). Bounded: one result, and progress at most every 200 ms.
 */
import type { ScanResult } from '../import/scan-file.js'

/** An error as plain data: an `ImportError` keeps what it names; anything else its message and code. */
export type ScanFailure =
  | { readonly kind: 'import'; readonly file: string; readonly line: number; readonly reason: string }
  | { readonly kind: 'other'; readonly message: string; readonly code?: string | undefined }

export type ScanToMain =
  | { readonly type: 'progress'; readonly fraction: number; readonly rows: number }
  | { readonly type: 'done'; readonly result: ScanResult }
  | { readonly type: 'failed'; readonly error: ScanFailure }
