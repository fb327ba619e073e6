import { describe, it, expect } from 'vitest'
import { BoundedQueue } from '../../ingest/bounded-queue.js'

describe('BoundedQueue', () => {
  it('makes producers wait when full and keeps FIFO order', async () => {
    const q = new BoundedQueue<number>(10)
    await q.push(1, 6)
    let second = false
    const p = q.push(2, 6).then(() => (second = true))
    await new Promise((r) => setTimeout(r, 10))
    expect(second).toBe(false)
    expect(q.weight).toBe(6)
    expect(await q.take()).toBe(1)
    await p
    expect(second).toBe(true)
    expect(await q.take()).toBe(2)
    expect(q.weight).toBe(0)
  })

  it('admits one oversized item into an empty queue so progress is possible', async () => {
    const q = new BoundedQueue<string>(5)
    await q.push('big', 50)
    expect(q.length).toBe(1)
  })

  it('lets a consumer wait for the next item', async () => {
    const q = new BoundedQueue<string>(5)
    const taken = q.take()
    await q.push('x', 1)
    expect(await taken).toBe('x')
  })
})
