/**
 * @module
 * The worker threads of the process, one mechanism for all of them (the demo market, full-speed replays,
 * the import byte scan, the admin NDJSON parser): a spawn holds one of `MAX_WORKERS` permits until its
 * thread is gone (terminated or exited), so the threads the process runs at once are bounded; a spawn beyond them waits in
 * a line of at most `MAX_WAITING_SPAWNS` (past that it is refused with `SemaphoreFullError`).
 *
 * A pooled worker reports its end once: the first of an uncaught error in the worker (`error`) or an exit
 * its owner did not ask for (`exit`, with the exit code). A worker its owner terminates reports nothing
 * more. Two ways to read its messages: a `message` handler, or `next()` in order (a stream whose sender is
 * paced by credits from the owner, so the queue holds at most the credits granted).
 */
import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads'
import { Semaphore } from '../../engine/runtime/semaphore.js'

/**
 * Threads at once: each kind runs one per source, import or parser (a service runs a few), so the bound is
 * reached only by a fault that spawns without end, which it turns into waiting spawns instead of threads.
 */
const MAX_WORKERS = 32
/** Spawns waiting for a permit at once. */
const MAX_WAITING_SPAWNS = 64

/** How a worker ended without its owner terminating it. */
export type WorkerEnd =
  { readonly kind: 'error'; readonly error: Error } | { readonly kind: 'exit'; readonly code: number }

export interface WorkerSpec {
  /** the worker's built module (a path under dist/) */
  readonly file: string
  readonly workerData?: unknown
  readonly resourceLimits?: ResourceLimits
  /** the worker does not keep the process alive */
  readonly unref?: boolean
}

export interface WorkerHandlers<M> {
  message(msg: M): void
  /** called once, the first of an error or an unasked exit; never after `terminate` */
  end(how: WorkerEnd): void
}

/** A running worker holding a permit; `In` is what it is sent. */
export class PooledWorker<In> {
  private terminated: Promise<void> | undefined

  constructor(
    private readonly worker: Worker,
    private readonly release: () => void
  ) {}

  post(msg: In, transfer?: readonly Transferable[]): void {
    this.worker.postMessage(msg, transfer)
  }

  /** true once `terminate` was called */
  get stopping(): boolean {
    return this.terminated !== undefined
  }

  /** Ends the thread (idempotent) and gives its permit back once it is gone. */
  terminate(): Promise<void> {
    this.terminated ??= this.worker.terminate().then(
      () => this.release(),
      () => this.release()
    )
    return this.terminated
  }
}

export class WorkerPool {
  private readonly permits: Semaphore

  constructor(maxWorkers = MAX_WORKERS, maxWaiting = MAX_WAITING_SPAWNS) {
    this.permits = new Semaphore(maxWorkers, maxWaiting)
  }

  /** Threads running (or being terminated) now. */
  get live(): number {
    return this.permits.inUse
  }

  /** Starts a worker once a permit is free; its messages and its end go to `handlers`. */
  async spawn<In, Out>(spec: WorkerSpec, handlers: WorkerHandlers<Out>): Promise<PooledWorker<In>> {
    await this.permits.acquire()
    let worker: Worker
    try {
      worker = new Worker(spec.file, {
        workerData: spec.workerData,
        ...(spec.resourceLimits ? { resourceLimits: spec.resourceLimits } : {})
      })
    } catch (err) {
      this.permits.release()
      throw err
    }
    if (spec.unref) worker.unref()
    let released = false
    const release = (): void => {
      if (released) return
      released = true
      this.permits.release()
    }
    const pooled = new PooledWorker<In>(worker, release)
    let ended = false
    const end = (how: WorkerEnd): void => {
      if (ended || pooled.stopping) return
      ended = true
      handlers.end(how)
    }
    worker.on('message', (msg: Out) => handlers.message(msg))
    worker.on('error', (error) => end({ kind: 'error', error }))
    worker.on('exit', (code) => {
      end({ kind: 'exit', code })
      // a thread that is gone holds no permit, whether or not its owner terminates it later
      release()
    })
    return pooled
  }

  /** Starts a worker whose messages are read in order with `next()`; its end is the last item. */
  async stream<In, Out>(spec: WorkerSpec): Promise<WorkerStream<In, Out>> {
    const inbox = new Inbox<Out>()
    const worker = await this.spawn<In, Out>(spec, {
      message: (message) => inbox.push({ message }),
      end: (end) => inbox.push({ end })
    })
    return new WorkerStream(worker, inbox)
  }
}

/** A message of a streamed worker, or how it ended (the last item). */
export type StreamItem<Out> = { readonly message: Out } | { readonly end: WorkerEnd }

/** The items a streamed worker sent and its owner has not read yet; the sender's credits bound it. */
class Inbox<Out> {
  private readonly items: StreamItem<Out>[] = []
  private wake: (() => void) | undefined

  push(item: StreamItem<Out>): void {
    this.items.push(item)
    this.wake?.()
  }

  async shift(): Promise<StreamItem<Out>> {
    while (this.items.length === 0) await new Promise<void>((r) => (this.wake = r))
    return this.items.shift()!
  }
}

/** A pooled worker read as a queue of its messages. */
export class WorkerStream<In, Out> {
  constructor(
    readonly worker: PooledWorker<In>,
    private readonly inbox: Inbox<Out>
  ) {}

  /** The next message, or how the worker ended (after an end nothing more arrives); bound, so it may be destructured. */
  readonly next = (): Promise<StreamItem<Out>> => this.inbox.shift()
}

/** The pool of the process: every worker thread of the service is spawned through it. */
export const workerPool = new WorkerPool()
