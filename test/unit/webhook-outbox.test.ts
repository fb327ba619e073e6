/**
 * The outbox's schedule under a fake clock (no sockets, no waiting): retries after 1 s, 4 s and 16 s with
 * ±20% jitter, then failed; a 429's Retry-After honoured within WEBHOOK_RETRY_AFTER_MAX_S; the failing clock
 * disabling a webhook after WEBHOOK_DISABLE_AFTER_S; bounded queues storing overflow as failed with a
 * counter; concurrency per receiver and overall, so a stuck receiver holds only its own slots.
 */
import crypto from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import type { InsertBatch, Store } from '../../engine/store/store.js'
import { Outbox, type RowWriterLike } from '../../engine/webhooks/outbox.js'
import { WebhookRegistry } from '../../engine/webhooks/registry.js'
import type { Clock } from '../../engine/webhooks/scheduler.js'
import { SecretBox } from '../../engine/webhooks/secret-box.js'
import type { DeliveryRequest, DeliveryResult, WebhookTransport } from '../../engine/webhooks/transport.js'
import { VersionClock } from '../../engine/webhooks/version-clock.js'

class FakeClock implements Clock {
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

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve()
}

/** A store that accepts everything and answers nothing (the registry's writes). */
class NullStore implements Store {
  readonly kind = 'chdb' as const
  async command(): Promise<void> {}
  async query<T>(): Promise<T[]> {
    return []
  }
  async insert(_b: InsertBatch): Promise<void> {}
  async *stream(): AsyncIterable<Uint8Array> {}
  async close(): Promise<void> {}
}

class MemoryWriter implements RowWriterLike {
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
class CountedWrite extends Promise<void> {
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
class TurnWriter extends MemoryWriter {
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
class ChunkWriter extends MemoryWriter {
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

const nextTurn = () => new Promise((r) => setImmediate(r))

type Script = (req: DeliveryRequest, n: number) => Partial<DeliveryResult> | 'hang'

class FakeTransport implements WebhookTransport {
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

let seq = 0
const ev = (over: Partial<SignalEvent> = {}): SignalEvent => ({
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

async function setup(
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
class LaggingStore extends NullStore {
  pending: Record<string, unknown>[] = []
  override async query<T>(sql?: string): Promise<T[]> {
    return (sql?.includes('FROM webhook_deliveries FINAL WHERE state') ? this.pending : []) as T[]
  }
}

/** A `webhook_deliveries` row as the resume query reads it. */
const pendingRow = (id: string, webhookId: number, createdMs: number) => ({
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

const A = 'https://a.example.com/hook'
const B = 'https://b.example.com/hook'

describe('webhook outbox schedule (fake clock)', () => {
  it.each([
    [0.5, [0, 1_000, 5_000, 21_000]],
    [0, [0, 800, 4_000, 16_800]],
    [1, [0, 1_200, 6_000, 25_200]]
  ])('a receiver answering 500: attempts at 0, +1 s, +4 s, +16 s (jitter %s), then failed', async (r, times) => {
    const s = await setup(
      {},
      () => ({ status: 500 }),
      () => r
    )
    await s.hook(A)
    const t0 = s.clock.now()
    await s.outbox.accept(ev())
    await s.clock.advance(60_000)
    expect(s.transport.at(A).map((t) => t - t0)).toEqual(times)
    expect(s.states().map((x) => x['state'])).toEqual(['failed'])
    expect(s.attempts.rows.map((x) => x['attempt'])).toEqual([1, 2, 3, 4])
    expect(s.attempts.rows.map((x) => x['next_retry_at'] === null)).toEqual([false, false, false, true])
    expect(s.outbox.stats()).toMatchObject({ failed: 1, retries: 3, attempts: 4, pending: 0 })
  })

  it('WEBHOOK_RETRY_DELAYS_MS replaces the schedule; a list that is not 3 whole ms in range is refused by name', async () => {
    const s = await setup(
      { WEBHOOK_RETRY_DELAYS_MS: '100, 200,300' },
      () => ({ status: 500 }),
      () => 0.5
    )
    await s.hook(A)
    const t0 = s.clock.now()
    await s.outbox.accept(ev())
    await s.clock.advance(60_000)
    expect(s.transport.at(A).map((t) => t - t0)).toEqual([0, 100, 300, 600])
    expect(s.states().map((x) => x['state'])).toEqual(['failed'])
    for (const bad of ['100,200', '100,200,300,400', '0,1,2', '1,2,x', '1.5,2,3', '1,2,3600001'])
      expect(() => loadConfig({ SOURCES: 'none', WEBHOOK_RETRY_DELAYS_MS: bad }), bad).toThrow(
        /^WEBHOOK_RETRY_DELAYS_MS must be 3 comma-separated whole ms/
      )
  })

  it('a delivery delivered on the 2nd attempt stops there', async () => {
    const s = await setup({}, (_q, n) => ({ status: n === 1 ? 503 : 200 }))
    await s.hook(A)
    await s.outbox.accept(ev())
    await s.clock.advance(60_000)
    expect(s.transport.at(A)).toHaveLength(2)
    // delivered is the 2xx in the attempt log: no delivery row is written for it
    expect(s.attempts.rows.map((x) => x['status_code'])).toEqual([503, 200])
    expect(s.states().map((x) => x['state'])).toEqual(['pending'])
    expect(s.outbox.stats()).toMatchObject({ delivered: 1, pending: 0 })
  })

  it.each([
    ['30', 30_000],
    ['3600', 60_000], // clamped to WEBHOOK_RETRY_AFTER_MAX_S
    ['0', 1_000], // never sooner than the schedule
    ['not a date', 1_000]
  ])('429 with Retry-After %s: the retry waits %i ms', async (header, wait) => {
    const s = await setup({}, (_q, n) => (n === 1 ? { status: 429, retryAfter: header } : { status: 200 }))
    await s.hook(A)
    await s.outbox.accept(ev())
    await s.clock.advance(120_000)
    const [t1, t2] = s.transport.at(A)
    expect(t2! - t1!).toBe(wait)
  })

  it('410 disables the webhook at once and fails what waits for it', async () => {
    const s = await setup({}, (_q, n) => ({ status: n === 1 ? 410 : 500 }))
    const w = await s.hook(A)
    await s.outbox.accept(ev())
    await s.clock.advance(1)
    expect(s.registry.get(w.id)).toMatchObject({ state: 'disabled' })
    expect(s.registry.get(w.id)!.stateReason).toMatch(/410/)
    await s.outbox.accept(ev())
    await s.clock.advance(60_000)
    expect(s.transport.calls).toHaveLength(1)
  })

  it('a webhook failing for WEBHOOK_DISABLE_AFTER_S is disabled, visibly; a success resets the clock', async () => {
    let ok = false
    const s = await setup({ WEBHOOK_DISABLE_AFTER_S: '60' }, () => ({ status: ok ? 200 : 500 }))
    const w = await s.hook(A)
    await s.outbox.accept(ev())
    await s.clock.advance(30_000)
    expect(s.registry.get(w.id)!.failingSince).not.toBeNull()
    ok = true
    await s.outbox.accept(ev())
    await s.clock.advance(1)
    expect(s.registry.get(w.id)!.failingSince).toBeNull()
    ok = false
    for (let i = 0; i < 6; i++) {
      await s.outbox.accept(ev())
      await s.clock.advance(15_000)
    }
    const now = s.registry.get(w.id)!
    expect(now.state).toBe('disabled')
    expect(now.stateReason).toMatch(/every delivery failed since .* \(WEBHOOK_DISABLE_AFTER_S=60\)/)
    expect(s.outbox.stats().webhooks_disabled).toBe(1)
    expect(s.outbox.stats().pending).toBe(0)
  })

  it('bounded: past WEBHOOK_MAX_PENDING(_PER_WEBHOOK) deliveries are stored failed (queue_full) and counted', async () => {
    const s = await setup({ WEBHOOK_MAX_PENDING: '5', WEBHOOK_MAX_PENDING_PER_WEBHOOK: '3' }, () => 'hang')
    await s.hook(A)
    await s.hook(B)
    for (let i = 0; i < 4; i++) await s.outbox.accept(ev())
    // 4 events x 2 webhooks: 3 per webhook would fit, but 5 overall
    const st = s.states()
    expect(st.filter((x) => x['state'] === 'pending')).toHaveLength(5)
    const full = st.filter((x) => x['state'] === 'failed')
    expect(full).toHaveLength(3)
    for (const f of full) expect(f['last_error']).toMatch(/^queue_full/)
    expect(s.outbox.stats()).toMatchObject({ dropped_queue_full: 3, pending: 5 })
    s.transport.release()
  })

  it('resume sends what a previous run left pending, never again what this run already delivered', async () => {
    const store = new LaggingStore()
    const s = await setup({}, () => ({ status: 200 }), undefined, store)
    const w = await s.hook(A)
    await s.outbox.accept(ev())
    await s.clock.advance(10)
    expect(s.outbox.stats()).toMatchObject({ delivered: 1, pending: 0 })
    const mine = s.deliveries.rows[0]!['delivery_id'] as string
    const previous = 'msg_' + 'ab'.repeat(16)
    // the store still shows this run's delivery pending (its 2xx attempt not loaded yet) beside the previous run's
    store.pending = [pendingRow(mine, w.id, s.clock.now()), pendingRow(previous, w.id, s.clock.now() - 60_000)]
    expect(await s.outbox.resume()).toBe(1)
    await s.clock.advance(10)
    expect(s.transport.calls).toHaveLength(2)
    expect(s.attempts.rows.map((r) => r['delivery_id'])).toEqual([mine, previous])
    expect(s.outbox.stats()).toMatchObject({ delivered: 2, pending: 0 })
  })

  it('a catalog event resumed after a restart keeps its stored payload text and body bytes in every later row and attempt', async () => {
    const payload = { symbol: 'USDC', chain: 'ethereum', amount: 1234567.891, note: 'é\t"q"\n', path: [1, { a: null }] }
    const bodies: string[] = []
    const failing = (req: DeliveryRequest) => (bodies.push(Buffer.from(req.body).toString('utf8')), { status: 500 })
    const first = await setup({}, failing)
    await first.hook(A)
    await first.outbox.accept({ id: 'whale-1', type: 'whale.transfer', ts: 1_800_000_000_123, payload })
    await first.clock.advance(10)
    const stored = first.deliveries.rows[0]!
    expect(stored['payload']).toBe(JSON.stringify(payload))
    // the row as the resume query reads it after the restart (a retry was due)
    const store = new LaggingStore()
    store.pending = [
      {
        ...pendingRow(stored['delivery_id'] as string, stored['webhook_id'] as number, stored['created_at'] as number),
        event_id: stored['event_id'],
        event: stored['event'],
        event_ms: stored['event_ts'],
        symbol: stored['symbol'],
        payload: stored['payload'],
        direction: '',
        confidence: '',
        composite: 0,
        attempts: 1
      }
    ]
    const second = await setup({}, failing, undefined, store)
    await second.hook(A)
    expect(await second.outbox.resume()).toBe(1)
    await second.clock.advance(60_000)
    // 1 attempt before the restart, the 3 left after it, every one with the same bytes
    expect(bodies).toHaveLength(4)
    expect(new Set(bodies)).toEqual(new Set([bodies[0]]))
    expect(JSON.parse(bodies[0]!)).toEqual({
      event: 'whale.transfer',
      ts: '2027-01-15T08:00:00.123Z',
      ...payload,
      webhook_id: 1
    })
    // each row version written after the restart (retries, then failed) stores the same text
    expect(second.deliveries.rows.length).toBeGreaterThan(0)
    for (const r of second.deliveries.rows) expect(r['payload']).toBe(stored['payload'])
    expect(second.states().map((r) => r['state'])).toEqual(['failed'])
  })

  it('an event whose payload JSON.stringify refuses is refused whole: nothing stored, pending or sent', async () => {
    const s = await setup({}, () => ({ status: 200 }))
    await s.hook(A)
    await expect(
      s.outbox.accept({ id: 'big-1', type: 'whale.transfer', ts: 1_800_000_000_000, payload: { amount: 10n ** 30n } })
    ).rejects.toThrow(/BigInt/)
    await s.clock.advance(60_000)
    expect(s.deliveries.rows).toHaveLength(0)
    expect(s.transport.calls).toHaveLength(0)
    expect(s.outbox.stats()).toMatchObject({ pending: 0, in_flight: 0 })
  })

  it('a stuck receiver holds only its own slots (WEBHOOK_RECEIVER_CONCURRENCY), others go on', async () => {
    const s = await setup({ WEBHOOK_RECEIVER_CONCURRENCY: '2', WEBHOOK_CONCURRENCY: '3' }, (q) =>
      q.url === A ? 'hang' : { status: 200 }
    )
    await s.hook(A)
    await s.hook(B)
    for (let i = 0; i < 10; i++) await s.outbox.accept(ev())
    await s.clock.advance(10)
    expect(s.transport.at(A)).toHaveLength(2)
    expect(s.transport.at(B)).toHaveLength(10)
    expect(s.outbox.stats().in_flight).toBe(2)
    s.transport.release()
    await s.clock.advance(10)
    expect(s.transport.at(A).length).toBeGreaterThan(2)
  })

  it('bus events of one turn share one journal write; their deliveries are all sent once it returns, in event order', async () => {
    const writer = new TurnWriter()
    const s = await setup({}, () => ({ status: 200 }), undefined, undefined, writer)
    await s.hook(A)
    await s.hook(B)
    const events = [ev(), ev(), ev()]
    for (const e of events) s.outbox.onEvent(e)
    expect(s.transport.calls).toHaveLength(0) // nothing is sent before the rows are journaled
    await nextTurn()
    await s.clock.advance(0)
    expect(writer.writes).toBe(1)
    // one promise reaction for the turn's three events, not one per event
    expect(writer.turns[0]!.reactions).toBe(1)
    expect(s.transport.calls.map((c) => c.url)).toEqual([A, B, A, B, A, B])
    expect(s.outbox.stats()).toMatchObject({ events: 3, deliveries: 6, delivered: 6, pending: 0, dropped_unstored: 0 })
    // the next turn's events make a batch of their own
    s.outbox.onEvent(ev())
    await nextTurn()
    await s.clock.advance(0)
    expect(writer.writes).toBe(2)
    expect(s.outbox.stats()).toMatchObject({ delivered: 8, pending: 0 })
  })

  it('an event whose deliveries fall into two journal writes is sent once both returned, dropped if either failed', async () => {
    // 3 rows per write: the second event's two deliveries are rows 3 and 4, across the boundary
    const writer = new ChunkWriter(3)
    const s = await setup({}, () => ({ status: 200 }), undefined, undefined, writer)
    await s.hook(A)
    await s.hook(B)
    s.outbox.onEvent(ev())
    s.outbox.onEvent(ev())
    expect(writer.writes).toHaveLength(2)
    writer.writes[0]!.ok()
    await s.clock.advance(0)
    // the first event's deliveries are in the first write alone; the second's wait for the second write too
    expect(s.transport.calls.map((c) => c.url)).toEqual([A, B])
    writer.writes[1]!.ok()
    await s.clock.advance(0)
    expect(s.transport.calls.map((c) => c.url)).toEqual([A, B, A, B])
    expect(s.outbox.stats()).toMatchObject({ delivered: 4, pending: 0, dropped_unstored: 0 })
    // rows 5-6 (third event) close the second write, rows 7-8 (fourth) and 9 open and close the third, row 10
    // (the fifth event's second delivery) opens a fourth: the fifth event spans a write that fails, so
    // neither of its deliveries is attempted
    for (let i = 0; i < 3; i++) s.outbox.onEvent(ev())
    expect(writer.writes).toHaveLength(4)
    writer.writes[2]!.ok()
    writer.writes[3]!.fail()
    await s.clock.advance(60_000)
    expect(s.transport.calls).toHaveLength(8)
    expect(s.outbox.stats()).toMatchObject({ delivered: 8, pending: 0, dropped_unstored: 2 })
  })

  it('bus events whose journal write fails are never attempted: counted in dropped_unstored, nothing pending', async () => {
    const writer = new TurnWriter()
    writer.fail = true
    const s = await setup({}, () => ({ status: 200 }), undefined, undefined, writer)
    await s.hook(A)
    await s.hook(B)
    for (let i = 0; i < 3; i++) s.outbox.onEvent(ev())
    await nextTurn()
    await s.clock.advance(60_000)
    expect(s.transport.calls).toHaveLength(0)
    expect(s.outbox.stats()).toMatchObject({ events: 3, deliveries: 6, dropped_unstored: 6, pending: 0, delivered: 0 })
    // the writer works again: the next event is delivered
    writer.fail = false
    s.outbox.onEvent(ev())
    await nextTurn()
    await s.clock.advance(0)
    expect(s.outbox.stats()).toMatchObject({ delivered: 2, pending: 0, dropped_unstored: 6 })
  })
})
