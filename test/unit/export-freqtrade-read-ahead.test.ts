/**
 * The freqtrade layout's read-ahead (engine/export/freqtrade/read-ahead.ts): the source is pulled before the
 * reader asks, up to the byte bound and no further; the reader gets every chunk in order, then the
 * source's error; `return()` cancels the source even while the pulling waits for room.
 */
import { describe, expect, it } from 'vitest'
import { readAhead } from '../../engine/export/freqtrade/read-ahead.js'
import { until } from '../helpers/until.js'

/** A source of `n` one-byte chunks (0, 1, ...) that counts its pulls, fails after `failAfter` if given, and notes its end. */
function counted(n: number, failAfter?: number) {
  const state = { pulled: 0, closed: false }
  async function* gen(): AsyncGenerator<Uint8Array> {
    try {
      for (let i = 0; i < n; i++) {
        if (i === failAfter) throw new Error('query failed mid-stream')
        state.pulled++
        yield Uint8Array.of(i)
      }
    } finally {
      state.closed = true
    }
  }
  return { state, source: gen() }
}

/** A few turns of the event loop: what the pulling would do unasked, it has done by then. */
const turns = async () => {
  for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r))
}

describe('freqtrade read-ahead', () => {
  it('pulls up to the bound before the reader asks, then on as the reader takes chunks', async () => {
    const { state, source } = counted(10)
    const ahead = readAhead(source, 3)
    await until('three chunks pulled unasked', () => state.pulled === 3)
    await turns()
    expect(state.pulled).toBe(3)
    const first = await ahead.next()
    expect(first.value).toEqual(Uint8Array.of(0))
    await until('a fourth chunk pulled once one was read', () => state.pulled === 4)
    const rest: number[] = []
    for await (const c of ahead) rest.push(c[0]!)
    expect(rest).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(state.closed).toBe(true)
    expect((await ahead.next()).done).toBe(true)
  })

  it("the source's error reaches the reader after the chunks before it", async () => {
    const { source } = counted(10, 4)
    const ahead = readAhead(source, 1024)
    const got: number[] = []
    await expect(
      (async () => {
        for await (const c of ahead) got.push(c[0]!)
      })()
    ).rejects.toThrow('query failed mid-stream')
    expect(got).toEqual([0, 1, 2, 3])
  })

  it('return() cancels the source while the pulling waits for room, and drops what it held', async () => {
    const { state, source } = counted(10)
    const ahead = readAhead(source, 2)
    await until('the bound reached', () => state.pulled === 2)
    expect(state.closed).toBe(false)
    await ahead.return()
    expect(state.closed).toBe(true)
    expect((await ahead.next()).done).toBe(true)
    expect(state.pulled).toBe(2)
  })
})
