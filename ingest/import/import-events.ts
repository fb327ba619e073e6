/**
 * @module
 * The server's import run as a stream of NDJSON events (`POST /v1/admin/import`), so the CLI shows
 * progress over one request: `progress` (latest state, coalesced, at least every second: it also keeps
 * the connection alive during a long insert), then one `file` per imported file and `done`, or one `error`.
 * If the client goes away the run stops before the next file is written (a file being written is
 * finished: a file is all or nothing).
 */
import type { Store } from '../../engine/store/store.js'
import { ImportError } from './import-error.js'
import { importFiles, type FileResult, type ImportOptions, type ImportProgress } from './run-import.js'

/** Longest gap between two events, ms. */
const HEARTBEAT_MS = 1000

export type ImportEvent =
  | ({ readonly type: 'progress' } & ImportProgress)
  | ({ readonly type: 'file' } & FileResult)
  | { readonly type: 'done'; readonly files: readonly FileResult[] }
  | { readonly type: 'error'; readonly file: string | null; readonly line: number; readonly message: string }

const encoder = new TextEncoder()
const line = (e: ImportEvent): Uint8Array => encoder.encode(JSON.stringify(e) + '\n')

export async function* importEvents(
  store: Store,
  files: readonly string[],
  opts: Omit<ImportOptions, 'onProgress' | 'signal'>,
  onError: (err: unknown) => void,
  /** called with the files' results when the import succeeded */
  onDone?: (results: readonly FileResult[]) => void
): AsyncGenerator<Uint8Array> {
  const abort = new AbortController()
  let latest: ImportProgress | null = null
  // holds the one final event
  const queued: ImportEvent[] = []
  let wake: (() => void) | null = null
  const job = importFiles(store, files, {
    ...opts,
    signal: abort.signal,
    onProgress: (p) => {
      latest = p
      wake?.()
    }
  }).then(
    (results) => {
      onDone?.(results)
      queued.push({ type: 'done', files: results })
    },
    (err: unknown) => {
      if (err instanceof ImportError)
        queued.push({ type: 'error', file: err.file, line: err.line, message: err.message })
      else {
        onError(err)
        queued.push({ type: 'error', file: null, line: 0, message: 'the import failed inside the server; see its log' })
      }
    }
  )
  let settled = false
  void job.then(() => {
    settled = true
    wake?.()
  })
  try {
    for (;;) {
      await new Promise<void>((r) => {
        const timer = setTimeout(r, HEARTBEAT_MS)
        wake = () => {
          clearTimeout(timer)
          r()
        }
      })
      wake = null
      const p = latest as ImportProgress | null
      if (p) yield line({ type: 'progress', ...p })
      if (settled) {
        const end = queued.at(-1)!
        if (end.type === 'done') for (const f of end.files) yield line({ type: 'file', ...f })
        yield line(end)
        return
      }
    }
  } finally {
    if (!settled) {
      abort.abort()
      await job
    }
  }
}
