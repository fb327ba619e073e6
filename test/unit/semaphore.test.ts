import { describe, expect, it } from 'vitest'
import { Semaphore, SemaphoreFullError } from '../../engine/runtime/semaphore.js'

describe('Semaphore', () => {
  it('holds at most its permits, hands a release to the longest waiter, refuses a full line', async () => {
    const s = new Semaphore(1, 1)
    await s.acquire()
    const order: string[] = []
    const second = s.acquire().then(() => order.push('second'))
    await expect(s.acquire()).rejects.toBeInstanceOf(SemaphoreFullError)
    expect(s.inUse).toBe(1)
    expect(s.waiting).toBe(1)
    s.release()
    await second
    expect(order).toEqual(['second'])
    expect(s.inUse).toBe(1)
    s.release()
    expect(s.inUse).toBe(0)
  })

  it('tryAcquire never waits; run releases when its function fails', async () => {
    const s = new Semaphore(1, 0)
    expect(s.tryAcquire()).toBe(true)
    expect(s.tryAcquire()).toBe(false)
    s.release()
    await expect(s.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x')
    expect(s.inUse).toBe(0)
  })
})
