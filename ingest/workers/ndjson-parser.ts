/**
 * @module
 * Main-thread side of the NDJSON worker: one worker, requests answered in order, at most
 * MAX_IN_FLIGHT bodies waiting (past that the caller is told to retry).
 */
import { Worker } from 'node:worker_threads'
import { distPath } from '../../engine/paths.js'
import type { RecordKind } from '../../engine/records/types.js'
import type { NdjsonResult } from '../ndjson-records.js'

/** Bodies queued for the worker at once; admin ingest is for bulk loads, not for many small calls. */
const MAX_IN_FLIGHT = 64

export class NdjsonParser {
  /** the running worker; a worker that failed or exited is dropped and the next request starts a new one */
  private worker: Worker | undefined
  private nextId = 1
  private readonly waiting = new Map<number, { resolve: (r: NdjsonResult) => void; reject: (e: Error) => void }>()
  private closed = false

  /** @param workerFile the worker's built module (tests name a missing one) */
  constructor(private readonly workerFile = distPath('ingest', 'workers', 'ndjson-worker.js')) {}

  /** The worker, started on first use and again after one failed (a missing worker file fails each request). */
  private running(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(this.workerFile)
    worker.unref()
    worker.on('message', (msg: { id: number; result?: NdjsonResult; error?: string }) => {
      const w = this.waiting.get(msg.id)
      this.waiting.delete(msg.id)
      if (!w) return
      if (msg.error !== undefined) return w.reject(new Error(`ndjson worker: ${msg.error}`))
      // chunk payloads arrive as Uint8Arrays over transferred buffers (structured clone keeps the type)
      w.resolve(msg.result!)
    })
    // a worker that fails (or exits unasked) answers none of its requests: they are rejected, never left waiting
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined
      for (const w of this.waiting.values()) w.reject(err)
      this.waiting.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`ndjson worker exited (code ${code})`))
    })
    this.worker = worker
    return worker
  }

  get busy(): boolean {
    return this.waiting.size >= MAX_IN_FLIGHT
  }

  parse(kind: RecordKind, body: Buffer): Promise<NdjsonResult> {
    const id = this.nextId++
    const copy = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer
    return new Promise((resolve, reject) => {
      const worker = this.running()
      this.waiting.set(id, { resolve, reject })
      worker.postMessage({ id, kind, body: copy }, [copy])
    })
  }

  /** Parses a body spooled to `file`, read by the worker in pieces (ingest/ndjson-file.ts). */
  parseFile(kind: RecordKind, file: string): Promise<NdjsonResult> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const worker = this.running()
      this.waiting.set(id, { resolve, reject })
      worker.postMessage({ id, kind, file })
    })
  }

  async close(): Promise<void> {
    this.closed = true
    await this.worker?.terminate()
  }
}
