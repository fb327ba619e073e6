import { describe, expect, it } from 'vitest'
import { IpThrottle } from '../../engine/access/ip-throttle.js'
import { RefillRate, TokenBucket } from '../../engine/runtime/token-bucket.js'

describe('RefillRate', () => {
  it('refills at the rate, up to the burst', () => {
    const rate = new RefillRate(60, 60_000, 10)
    const level = rate.full(0)
    level.tokens = 0
    rate.refill(level, 2_500)
    expect(level.tokens).toBe(2.5)
    expect(rate.msUntil(level, 3)).toBe(500)
    expect(rate.msUntil(level, 2)).toBe(0)
    expect(rate.isFullAt(level, 10_000)).toBe(true)
    rate.refill(level, 1_000_000)
    expect(level.tokens).toBe(10)
  })

  it('refuses a rate that is not positive', () => {
    expect(() => new RefillRate(0, 1_000, 1)).toThrow(RangeError)
  })
})

describe('TokenBucket', () => {
  it('serves the burst at once, then refuses a wait longer than asked', async () => {
    const b = new TokenBucket({ ratePerSec: 1, burst: 2, maxWaiters: 5 })
    expect(await b.take(0)).toBe(true)
    expect(await b.take(0)).toBe(true)
    expect(await b.take(10)).toBe(false)
    expect(b.refused).toBe(1)
  })

  it('a waiter gets its token once the bucket refilled, waiting as long as the refill takes', async () => {
    // a driven clock: a wait is recorded and ends at once; the test moves the clock past it
    let now = 0
    const waits: number[] = []
    const b = new TokenBucket({
      ratePerSec: 100,
      burst: 1,
      now: () => now,
      wait: async (ms) => void waits.push(ms)
    })
    expect(await b.take(0)).toBe(true)
    // one token at 100/s: 10 ms
    const one = b.take(1_000)
    expect(waits).toEqual([10])
    now = 10
    expect(await one).toBe(true)
    expect(b.waited).toBe(1)
    // two callers in line: the second waits for both tokens, 20 ms from now
    const first = b.take(1_000)
    const second = b.take(1_000)
    expect(waits).toEqual([10, 10, 20])
    now = 30
    expect(await Promise.all([first, second])).toEqual([true, true])
    // a wait longer than the caller allows is refused at once
    expect(await b.take(5)).toBe(false)
    expect(b.refused).toBe(1)
  })

  it('tryTake takes a token only when one is there and nobody waits, counting nothing', async () => {
    let now = 0
    let release: () => void = () => undefined
    const b = new TokenBucket({
      ratePerSec: 100,
      burst: 1,
      now: () => now,
      wait: () => new Promise<void>((r) => (release = r))
    })
    expect(b.tryTake()).toBe(true)
    expect(b.tryTake()).toBe(false) // empty: nothing taken, nothing counted
    expect([b.waited, b.refused]).toEqual([0, 0])
    const waiter = b.take(1_000) // in line for the next token
    now = 10 // the token the waiter was promised is there: tryTake does not jump the line
    expect(b.tryTake()).toBe(false)
    release()
    expect(await waiter).toBe(true)
    now = 20
    expect(b.tryTake()).toBe(true)
  })
})

describe('IpThrottle on the shared bucket', () => {
  it('answers remaining, reset and retry-after from the bucket', () => {
    let now = 0
    const t = new IpThrottle(60, () => now)
    for (let i = 0; i < 59; i++) t.take('a')
    expect(t.take('a')).toEqual({ ok: true, remaining: 0, resetSeconds: 60 })
    expect(t.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 })
    now = 1_500
    expect(t.take('a')).toEqual({ ok: true, remaining: 0, resetSeconds: 60 })
    expect(t.take('b')).toEqual({ ok: true, remaining: 59, resetSeconds: 1 })
  })
})
