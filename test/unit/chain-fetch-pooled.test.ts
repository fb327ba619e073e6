/**
 * The receipt pool of the EVM range fetcher (ingest/sources/chain/evm-fetch.ts `pooled`): results in input order
 * with at most `limit` calls in flight; after a call fails no further call starts, and the failure is thrown
 * once the calls in flight have ended (the other workers do not go on through the rest of the list).
 */
import { describe, expect, it } from 'vitest'
import { pooled } from '../../ingest/sources/chain/evm-fetch.js'

const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

describe('pooled', () => {
  it('keeps input order and at most `limit` in flight', async () => {
    let inFlight = 0
    let most = 0
    const out = await pooled([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++inFlight)
      for (let i = 0; i < n; i++) await tick()
      inFlight--
      return n * 10
    })
    expect(out).toEqual([50, 10, 40, 20, 30])
    expect(most).toBe(2)
  })

  it('starts nothing after a failure and throws it after the calls in flight end', async () => {
    const started: number[] = []
    let slowEnded = false
    const run = pooled(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (i) => {
        started.push(i)
        if (i === 1) throw new Error('receipt 1 failed')
        if (i === 0) {
          for (let k = 0; k < 5; k++) await tick()
          slowEnded = true
        }
        await tick()
        return i
      }
    )
    await expect(run).rejects.toThrow('receipt 1 failed')
    expect(slowEnded).toBe(true)
    // the three first calls, plus at most what the other workers had taken before the failure was seen
    expect(started.length).toBeLessThanOrEqual(4)
  })
})
