/**
 * The outbox and its journal under a fake clock: resume after a restart (what was left pending is sent, what
 * was delivered is not; a resumed event keeps its stored payload), an event refused whole, and deliveries
 * sent only once the journal write holding them returned (dropped, and counted, when it failed).
 */
import { describe, expect, it } from 'vitest'
import type { DeliveryRequest } from '../../engine/webhooks/transport.js'
import {
  TurnWriter,
  ChunkWriter,
  nextTurn,
  ev,
  setup,
  LaggingStore,
  pendingRow,
  A,
  B
} from '../helpers/webhooks/outbox-harness.js'

describe('webhook outbox journal and resume (fake clock)', () => {
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
