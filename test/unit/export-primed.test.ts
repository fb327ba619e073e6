import { describe, expect, it } from 'vitest'
import { primed } from '../../engine/export/primed.js'

describe('primed export body', () => {
  it('yields the pulled first chunk, then the rest', async () => {
    async function* src() {
      yield Uint8Array.of(1)
      yield Uint8Array.of(2)
    }
    const out: number[] = []
    for await (const c of await primed(src())) out.push(...c)
    expect(out).toEqual([1, 2])
  })

  it('return() before the first read still closes the source (cancel query, delete temp files)', async () => {
    let closed = false
    async function* src() {
      try {
        yield Uint8Array.of(1)
        yield Uint8Array.of(2)
      } finally {
        closed = true
      }
    }
    const body = await primed(src())
    expect(closed).toBe(false)
    await body.return!()
    expect(closed).toBe(true)
  })
})
