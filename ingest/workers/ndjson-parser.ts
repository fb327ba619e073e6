/**
 * @module
 * Main-thread side of the NDJSON worker: one worker, requests answered in order, at most
 * MAX_IN_FLIGHT bodies waiting (past that the caller is told to retry).
 */
import { distPath } from '../../engine/paths.js'
import type { RecordKind } from '../../engine/records/types.js'
import type { NdjsonResult } from '../ndjson-records.js'
import { workerPool, type PooledWorker } from './worker-pool.js'

/** Bodies queued for the worker at once; admin ingest is for bulk loads, not for many small calls. */
const MAX_IN_FLIGHT = 64

type ToWorker = { id: number; kind: RecordKind; body: ArrayBuffer } | { id: number; kind: RecordKind; file: string }
type FromWorker = { id: number; result?: NdjsonResult; error?: string }

export class NdjsonParser {
  /** the running worker; a worker that failed or exited is dropped and the next request starts a new one */
  private worker: Promise<PooledWorker<ToWorker>> | undefined
  private nextId = 1
  private readonly waiting = new Map<number, { resolve: (r: NdjsonResult) => void; reject: (e: Error) => void }>()

  /** @param workerFile the worker's built module (tests name a missing one) */
  constructor(private readonly workerFile = distPath('ingest', 'workers', 'ndjson-worker.js')) {}

  /** The worker, started on first use and again after one failed (a missing worker file fails each request). */
  private running(): Promise<PooledWorker<ToWorker>> {
    if (this.worker) return this.worker
    const started = workerPool.spawn<ToWorker, FromWorker>(
      { file: this.workerFile, unref: true },
      {
        message: (msg) => {
          const w = this.waiting.get(msg.id)
          this.waiting.delete(msg.id)
          if (!w) return
          if (msg.error !== undefined) return w.reject(new Error(`ndjson worker: ${msg.error}`))
          // chunk payloads arrive as Uint8Arrays over transferred buffers (structured clone keeps the type)
          w.resolve(msg.result!)
        },
        // a worker that fails (or exits unasked) answers none of its requests: they are rejected, never left waiting
        end: (how) =>
          this.fail(started, how.kind === 'error' ? how.error : new Error(`ndjson worker exited (code ${how.code})`))
      }
    )
    // no thread to be had (the pool's line is full): this request and those waiting with it fail, the next tries again
    started.catch((err: Error) => this.fail(started, err))
    this.worker = started
    return started
  }

  private fail(worker: Promise<PooledWorker<ToWorker>>, err: Error): void {
    if (this.worker === worker) this.worker = undefined
    for (const w of this.waiting.values()) w.reject(err)
    this.waiting.clear()
  }

  get busy(): boolean {
    return this.waiting.size >= MAX_IN_FLIGHT
  }

  parse(kind: RecordKind, body: Buffer): Promise<NdjsonResult> {
    const copy = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer
    return this.request((id) => ({ id, kind, body: copy }), [copy])
  }

  /** Parses a body spooled to `file`, read by the worker in pieces (ingest/ndjson-file.ts). */
  parseFile(kind: RecordKind, file: string): Promise<NdjsonResult> {
    return this.request((id) => ({ id, kind, file }))
  }

  private request(message: (id: number) => ToWorker, transfer: readonly ArrayBuffer[] = []): Promise<NdjsonResult> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const worker = this.running()
      this.waiting.set(id, { resolve, reject })
      void worker.then(
        (w) => {
          if (this.waiting.has(id)) w.post(message(id), transfer)
        },
        () => {}
      )
    })
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    await (await worker?.catch(() => undefined))?.terminate()
  }
}
