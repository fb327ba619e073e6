/**
 * @module
 * When and how many attempts start. Waiting deliveries sit in a min-heap by due time under one timer; due
 * ones move to their receiver's FIFO (receiver = URL origin). Attempts start round-robin across receivers
 * while fewer than `concurrency` are in flight overall and fewer than `perReceiver` for that receiver, so a
 * slow or dead receiver holds at most its own slots and never delays the others. `paused` holds every start
 * (the outbox's backpressure when its store writes fall behind). Time comes from a `Clock`, so tests can
 * drive retries with a fake one.
 */

export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout)
}

/** What the scheduler keeps per item (fields it owns are written by it only). */
export interface Schedulable {
  /** receiver key: the URL origin */
  origin: string
  /** epoch ms the item is due */
  dueAt: number
  /** position in the heap; -1 when not there (owned by the scheduler) */
  heapIndex: number
  /** in a receiver's ready FIFO (owned by the scheduler) */
  ready: boolean
}

class Fifo<T> {
  private items: (T | undefined)[] = []
  private head = 0
  get length(): number {
    return this.items.length - this.head
  }
  push(x: T): void {
    this.items.push(x)
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined
    const x = this.items[this.head]
    this.items[this.head++] = undefined
    // compact once the consumed prefix dominates (amortized O(1))
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return x
  }
}

interface Receiver<T> {
  readonly queue: Fifo<T>
  inFlight: number
}

export class Scheduler<T extends Schedulable> {
  private readonly heap: T[] = []
  private readonly receivers = new Map<string, Receiver<T>>()
  /** origins in round-robin order; one with an empty queue and nothing in flight is dropped */
  private order: string[] = []
  private cursor = 0
  private timer: unknown = null
  private timerAt = Infinity
  private inFlight = 0
  /** `idle()` callers waiting for the last attempt in flight to settle */
  private idleWaiters: (() => void)[] = []
  /** items in ready FIFOs (removed ones are skipped lazily and not counted) */
  private readyCount = 0
  private stopped = false
  /** holds every start while true; `resume()` clears it */
  paused = false

  constructor(
    private readonly clock: Clock,
    private readonly concurrency: number,
    private readonly perReceiver: number,
    /** starts an attempt; must call `done(item)` once it settles */
    private readonly startItem: (item: T) => void
  ) {}

  /** Items waiting (in the heap or a ready FIFO). */
  get waiting(): number {
    return this.heap.length + this.readyCount
  }

  get running(): number {
    return this.inFlight
  }

  /** Schedules `item` at `dueAt` (now or earlier: ready at once). */
  add(item: T, dueAt: number): void {
    item.dueAt = dueAt
    if (dueAt <= this.clock.now()) {
      this.enqueueReady(item)
      this.pump()
    } else {
      this.heapPush(item)
      this.arm()
    }
  }

  /** Takes a waiting item out (no attempt will start for it). False when it was not waiting. */
  remove(item: T): boolean {
    if (item.heapIndex >= 0) {
      this.heapRemove(item.heapIndex)
      return true
    }
    if (item.ready) {
      item.ready = false
      this.readyCount--
      return true
    }
    return false
  }

  /** An attempt started by `startItem` settled: frees its slots. */
  done(item: T): void {
    this.inFlight--
    const r = this.receivers.get(item.origin)
    if (r) r.inFlight--
    this.pump()
    if (this.inFlight === 0 && this.idleWaiters.length > 0) for (const w of this.idleWaiters.splice(0)) w()
  }

  /** Resolves once no attempt is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  resume(): void {
    this.paused = false
    this.pump()
  }

  stop(): void {
    this.stopped = true
    if (this.timer !== null) this.clock.clearTimeout(this.timer)
    this.timer = null
  }

  private receiver(origin: string): Receiver<T> {
    let r = this.receivers.get(origin)
    if (!r) {
      r = { queue: new Fifo<T>(), inFlight: 0 }
      this.receivers.set(origin, r)
      this.order.push(origin)
    }
    return r
  }

  private enqueueReady(item: T): void {
    item.ready = true
    this.readyCount++
    this.receiver(item.origin).queue.push(item)
  }

  /** Starts what the limits allow, round-robin over receivers. */
  private pump(): void {
    if (this.paused || this.stopped) return
    let idle = 0
    while (this.inFlight < this.concurrency && this.readyCount > 0 && this.order.length > 0) {
      if (this.cursor >= this.order.length) this.cursor = 0
      const origin = this.order[this.cursor]!
      const r = this.receivers.get(origin)!
      let item: T | undefined
      if (r.inFlight < this.perReceiver) {
        while ((item = r.queue.shift()) !== undefined && !item.ready) {
          // removed while queued: skip
        }
      }
      if (item === undefined) {
        if (r.queue.length === 0 && r.inFlight === 0) {
          this.receivers.delete(origin)
          this.order.splice(this.cursor, 1)
          idle = 0
          continue
        }
        this.cursor++
        if (++idle >= this.order.length) return
        continue
      }
      idle = 0
      item.ready = false
      this.readyCount--
      this.inFlight++
      r.inFlight++
      this.cursor++
      this.startItem(item)
      if (this.paused || this.stopped) return
    }
  }

  private arm(): void {
    const next = this.heap[0]
    if (next === undefined || this.stopped) return
    if (this.timer !== null && this.timerAt <= next.dueAt) return
    if (this.timer !== null) this.clock.clearTimeout(this.timer)
    this.timerAt = next.dueAt
    this.timer = this.clock.setTimeout(() => this.fire(), Math.max(0, next.dueAt - this.clock.now()))
  }

  private fire(): void {
    this.timer = null
    this.timerAt = Infinity
    const now = this.clock.now()
    while (this.heap.length > 0 && this.heap[0]!.dueAt <= now) {
      const item = this.heap[0]!
      this.heapRemove(0)
      this.enqueueReady(item)
    }
    this.arm()
    this.pump()
  }

  // binary min-heap by dueAt

  private heapPush(item: T): void {
    item.heapIndex = this.heap.length
    this.heap.push(item)
    this.up(item.heapIndex)
  }

  private heapRemove(i: number): void {
    const item = this.heap[i]!
    const last = this.heap.pop()!
    item.heapIndex = -1
    if (i < this.heap.length) {
      this.heap[i] = last
      last.heapIndex = i
      this.down(i)
      this.up(i)
    }
  }

  private up(i: number): void {
    const h = this.heap
    while (i > 0) {
      const p = (i - 1) >> 1
      if (h[p]!.dueAt <= h[i]!.dueAt) break
      this.swap(i, p)
      i = p
    }
  }

  private down(i: number): void {
    const h = this.heap
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < h.length && h[l]!.dueAt < h[m]!.dueAt) m = l
      if (r < h.length && h[r]!.dueAt < h[m]!.dueAt) m = r
      if (m === i) return
      this.swap(i, m)
      i = m
    }
  }

  private swap(a: number, b: number): void {
    const h = this.heap
    const x = h[a]!
    const y = h[b]!
    h[a] = y
    h[b] = x
    y.heapIndex = a
    x.heapIndex = b
  }
}
