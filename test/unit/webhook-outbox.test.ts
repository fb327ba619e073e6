/**
 * The outbox's schedule under a fake clock (no sockets, no waiting): retries after 1 s, 4 s and 16 s with
 * ±20% jitter, then failed; a 429's Retry-After honoured within WEBHOOK_RETRY_AFTER_MAX_S; the failing clock
 * disabling a webhook after WEBHOOK_DISABLE_AFTER_S; bounded queues storing overflow as failed with a
 * counter; concurrency per receiver and overall, so a stuck receiver holds only its own slots.
 */
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../server/config.js'
import { ev, setup, A, B } from '../helpers/webhooks/outbox-harness.js'

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
})
