import { describe, expect, it } from 'vitest'
import { backoffDelayMs, backoffMs, DEFAULT_BACKOFF, reconnectDelayMs, sleep } from '../../engine/runtime/backoff.js'

const fixed = (x: number) => () => x

describe('backoff', () => {
  it('equal jitter: half the step as a floor, the step as a ceiling, capped', () => {
    expect(backoffMs(1, fixed(0))).toBe(100)
    expect(backoffMs(1, fixed(1))).toBe(200)
    expect(backoffMs(3, fixed(0.5))).toBe(600) // step 800: 400 + 200
    expect(backoffMs(40, fixed(1))).toBe(15_000)
    expect(backoffMs(40, fixed(0), 2_000)).toBe(1_000)
  })

  it('full jitter: uniform under the step, from zero', () => {
    expect(reconnectDelayMs(0, DEFAULT_BACKOFF, fixed(0))).toBe(0)
    expect(reconnectDelayMs(0, DEFAULT_BACKOFF, fixed(1))).toBe(500)
    expect(reconnectDelayMs(2, DEFAULT_BACKOFF, fixed(0.5))).toBe(1_000)
    expect(reconnectDelayMs(1_000, DEFAULT_BACKOFF, fixed(1))).toBe(30_000)
  })

  it('a step below zero is the first step', () => {
    expect(backoffDelayMs(-3, { baseMs: 100, maxMs: 1_000 }, 'full', fixed(1))).toBe(100)
  })

  it('sleep resolves at once on an aborted signal and leaves no listener', async () => {
    const ac = new AbortController()
    const slept = sleep(60_000, ac.signal)
    ac.abort()
    await slept
    await sleep(60_000, ac.signal)
  })
})
