import { describe, expect, it } from 'vitest'
import { SingleFlight } from '../../engine/runtime/single-flight.js'

/** a promise settled from outside, to hold a run in flight without timers */
function held<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void
  let reject!: (e: Error) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('SingleFlight', () => {
  it('calls made while a run of their key is in flight share it; other keys run on their own', async () => {
    const f = new SingleFlight<number>()
    let calls = 0
    const gate = held<number>()
    const run = () => {
      calls++
      return gate.promise
    }
    const a = f.run('BTC', run)
    const b = f.run('BTC', run)
    const c = f.run('ETH', () => Promise.resolve(7))
    expect(calls).toBe(1)
    expect(f.size).toBe(2)
    gate.resolve(42)
    expect(await Promise.all([a, b, c])).toEqual([42, 42, 7])
    expect(f.size).toBe(0)
  })

  it('keeps nothing once a run settles: the next call runs again', async () => {
    const f = new SingleFlight<number>()
    let calls = 0
    const run = () => Promise.resolve(++calls)
    expect(await f.run('k', run)).toBe(1)
    expect(await f.run('k', run)).toBe(2)
  })

  it('shares an error with every caller of the run, then forgets it', async () => {
    const f = new SingleFlight<number>()
    const gate = held<number>()
    const a = f.run('k', () => gate.promise)
    const b = f.run('k', () => Promise.resolve(1))
    gate.reject(new Error('store down'))
    await expect(a).rejects.toThrow('store down')
    await expect(b).rejects.toThrow('store down')
    expect(await f.run('k', () => Promise.resolve(3))).toBe(3)
  })
})
