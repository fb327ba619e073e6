/**
 * The webhook outbox under a fake clock, for its unit tests (no sockets, no waiting): a clock whose timers
 * run on `advance(ms)`, a scripted transport (an answer per request, or `hang` until `release()`), writers
 * standing for the journal (in memory; one write per event-loop turn; one write per chunk of rows, settled by
 * the test), a store that answers nothing or only the resume query, and `setup` wiring an Outbox to them.
 */
import crypto from 'node:crypto'
import { loadConfig } from '../../../server/config.js'
import { silentLogger } from '../../../engine/log.js'
import type { SignalEvent } from '../../../engine/signals/signal-event.js'
import type { InsertBatch, Store } from '../../../engine/store/store.js'
import { Outbox, type RowWriterLike } from '../../../engine/webhooks/outbox.js'
import { WebhookRegistry } from '../../../engine/webhooks/registry.js'
import type { Clock } from '../../../engine/webhooks/scheduler.js'
import { SecretBox } from '../../../engine/webhooks/secret-box.js'
import type { DeliveryRequest, DeliveryResult, WebhookTransport } from '../../../engine/webhooks/transport.js'
import { VersionClock } from '../../../engine/webhooks/version-clock.js'

export class FakeClock implements Clock {
  t = 1_800_000_000_000
  private timers: { at: number; fn: () => void; id: number }[] = []
  private ids = 0
  now(): number {
    return this.t
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids
    this.timers.push({ at: this.t + ms, fn, id })
    return id
  }
  clearTimeout(h: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== h)
  }
  /** Runs every timer due within `ms`, in time order, letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms
    for (;;) {
      await settle()
      this.timers.sort((a, b) => a.at - b.at)
      const next = this.timers[0]
      if (!next || next.at > end) break
      this.timers.shift()
      this.t = Math.max(this.t, next.at)
      next.fn()
    }
    this.t = end
    await settle()
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve()
}

/** A store that accepts everything and answers nothing (the registry's writes). */
export class NullStore implements Store {
  readonly kind = 'chdb' as const
  async command(): Promise<void> {}
  async query<T>(): Promise<T[]> {
    return []
  }
  async insert(_b: InsertBatch): Promise<void> {}
  async *stream(): AsyncIterable<Uint8Array> {}
  async close(): Promise<void> {}
}

export class MemoryWriter implements RowWriterLike {
  readonly rows: Record<string, unknown>[] = []
  queued = 0
  full = false
  async push(row: object): Promise<void> {
    this.rows.push(row as Record<string, unknown>)
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/**
 * A journal write's promise that counts the reactions registered on it (`then`, `catch`, `await`,
 * `Promise.all` all go through `then` on a subclass): how many promise reactions the outbox pays per write.
 */
export class CountedWrite extends Promise<void> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise
  }
  reactions = 0
  override then<A = void, B = never>(
    ok?: ((v: void) => A | PromiseLike<A>) | null,
    bad?: ((r: unknown) => B | PromiseLike<B>) | null
  ): Promise<A | B> {
    this.reactions++
    return super.then(ok, bad)
  }
}

/** A writer whose rows of one event-loop turn share one promise, as the journal's; `fail` rejects the turn's write. */
export class TurnWriter extends MemoryWriter {
  fail = false
  writes = 0
  /** each write's promise, in order */
  readonly turns: CountedWrite[] = []
  private turn: CountedWrite | null = null
  override push(row: object): Promise<void> {
    this.rows.push(row as Record<string, unknown>)
    if (this.turn === null) {
      let settle!: (err: Error | null) => void
      const turn = new CountedWrite((resolve, reject) => {
        settle = (err) => (err ? reject(err) : resolve())
      })
      this.turn = turn
      this.turns.push(turn)
      setImmediate(() => {
        this.turn = null
        this.writes++
        settle(this.fail ? new Error('disk full') : null)
      })
    }
    return this.turn
  }
}

/**
 * A writer that starts a new write every `rowsPerWrite` rows (a journal chunk boundary), each settled by the
 * test: `writes[i].ok()` / `.fail()`.
 */
export class ChunkWriter extends MemoryWriter {
  readonly writes: { promise: Promise<void>; ok: () => void; fail: () => void }[] = []
  constructor(private readonly rowsPerWrite: number) {
    super()
  }
  override push(row: object): Promise<void> {
    this.rows.push(row as Record<string, unknown>)
    if ((this.rows.length - 1) % this.rowsPerWrite === 0) {
      let ok!: () => void
      let fail!: () => void
      const promise = new Promise<void>((resolve, reject) => {
        ok = resolve
        fail = () => reject(new Error('disk full'))
      })
      promise.catch(() => {})
      this.writes.push({ promise, ok, fail })
    }
    return this.writes.at(-1)!.promise
  }
}

export const nextTurn = () => new Promise((r) => setImmediate(r))

export type Script = (req: DeliveryRequest, n: number) => Partial<DeliveryResult> | 'hang'

export class FakeTransport implements WebhookTransport {
  readonly calls: { url: string; at: number }[] = []
  private readonly hanging: (() => void)[] = []
  constructor(
    private readonly clock: FakeClock,
    public script: Script
  ) {}
  send(req: DeliveryRequest): Promise<DeliveryResult> {
    this.calls.push({ url: req.url, at: this.clock.now() })
    const r = this.script(req, this.calls.filter((c) => c.url === req.url).length)
    const result = (p: Partial<DeliveryResult>): DeliveryResult => ({
      status: null,
      error: null,
      durationMs: 1,
      excerpt: '',
      retryAfter: null,
      ...p
    })
    if (r === 'hang') return new Promise((res) => this.hanging.push(() => res(result({ status: 200 }))))
    return Promise.resolve(result(r))
  }
  release(): void {
    for (const f of this.hanging.splice(0)) f()
  }
  at(url: string): number[] {
    return this.calls.filter((c) => c.url === url).map((c) => c.at)
  }
  async close(): Promise<void> {}
}

export let seq = 0
export const ev = (over: Partial<SignalEvent> = {}): SignalEvent => ({
  id: `e${++seq}`,
  event: 'HIGH',
  ts: 1_800_000_000_000,
  symbol: 'BTC',
  direction: 'long',
  confidence: 'HIGH',
  composite: 0.5,
  action: 'CONFIRM',
  source: 'engine',
  ...over
})

export async function setup(
  env: Record<string, string>,
  script: Script,
  random = () => 0.5,
  store: Store = new NullStore(),
  deliveries: MemoryWriter = new MemoryWriter()
) {
  const clock = new FakeClock()
  const config = loadConfig({ SOURCES: 'none', ...env }).webhooks
  const versions = new VersionClock(() => clock.now())
  const registry = new WebhookRegistry(new NullStore(), SecretBox.fromKey(crypto.randomBytes(32)), versions, () =>
    clock.now()
  )
  const transport = new FakeTransport(clock, script)
  const attempts = new MemoryWriter()
  const outbox = new Outbox(
    { store, registry, transport, config, versions, log: silentLogger(), clock, random },
    { deliveries, attempts }
  )
  const hook = (url: string) =>
    registry.create('key1', { url, events: ['*'], symbols: ['*'], secret: 'a-secret-of-16-chars' })
  /** the latest state row of each delivery */
  const states = () => {
    const last = new Map<string, Record<string, unknown>>()
    for (const r of deliveries.rows) last.set(r['delivery_id'] as string, r)
    return [...last.values()]
  }
  return { clock, registry, transport, outbox, hook, deliveries, attempts, states }
}

/**
 * A store behind the journal: `pending` delivery rows answer the resume query, the attempt log is empty (its
 * 2xx rows not loaded yet).
 */
export class LaggingStore extends NullStore {
  pending: Record<string, unknown>[] = []
  override async query<T>(sql?: string): Promise<T[]> {
    return (sql?.includes('FROM webhook_deliveries FINAL WHERE state') ? this.pending : []) as T[]
  }
}

/** A `webhook_deliveries` row as the resume query reads it. */
export const pendingRow = (id: string, webhookId: number, createdMs: number) => ({
  delivery_id: id,
  webhook_id: webhookId,
  key_id: 'key1',
  event_id: `ev-${id}`,
  event: 'HIGH',
  event_ms: createdMs,
  symbol: 'BTC',
  direction: 'long',
  confidence: 'HIGH',
  composite: 0.5,
  trigger: 'event',
  state: 'pending',
  attempts: 0,
  round_start: 0,
  next_ms: createdMs,
  last_status: 0,
  last_error: '',
  created_ms: createdMs
})

export const A = 'https://a.example.com/hook'
export const B = 'https://b.example.com/hook'
