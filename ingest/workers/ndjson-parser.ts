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
  private readonly worker: Worker
  private nextId = 1
  private readonly waiting = new Map<number, { resolve: (r: NdjsonResult) => void; reject: (e: Error) => void }>()

  constructor() {
    this.worker = new Worker(distPath('ingest', 'workers', 'ndjson-worker.js'))
    this.worker.unref()
    this.worker.on('message', (msg: { id: number; result?: NdjsonResult; error?: string }) => {
      const w = this.waiting.get(msg.id)
      this.waiting.delete(msg.id)
      if (!w) return
      if (msg.error !== undefined) return w.reject(new Error(`ndjson worker: ${msg.error}`))
      // chunk payloads arrive as Uint8Arrays over transferred buffers (structured clone keeps the type)
      w.resolve(msg.result!)
    })
    this.worker.on('error', (err) => {
      for (const w of this.waiting.values()) w.reject(err)
      this.waiting.clear()
    })
  }

  get busy(): boolean {
    return this.waiting.size >= MAX_IN_FLIGHT
  }

  parse(kind: RecordKind, body: Buffer): Promise<NdjsonResult> {
    const id = this.nextId++
    const copy = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.worker.postMessage({ id, kind, body: copy }, [copy])
    })
  }

  /** Parses a body spooled to `file`, read by the worker in pieces (ingest/ndjson-file.ts). */
  parseFile(kind: RecordKind, file: string): Promise<NdjsonResult> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.worker.postMessage({ id, kind, file })
    })
  }

  async close(): Promise<void> {
    await this.worker.terminate()
  }
}
