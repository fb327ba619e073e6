/**
 * The push stream's fan-out (server/http/uws-fanout.ts): frames published in one microtask run reach each
 * holder in one write, in publish order, before the next macrotask; a direct send writes what is pending
 * first; refused frames are counted; sockets that left a topic or closed get nothing more.
 */
import { describe, expect, it } from 'vitest'
import { Fanout, type FanoutSocket } from '../../server/http/uws-fanout.js'

class FakeSocket implements FanoutSocket {
  closed = false
  pending: (string | Uint8Array)[] | null = null
  readonly writes: (string | Uint8Array)[][] = []
  /** frames beyond this many written are refused */
  constructor(private readonly room = Infinity) {}
  write(frames: readonly (string | Uint8Array)[]): number {
    const written = this.writes.flat().length
    const fit = Math.max(0, Math.min(frames.length, this.room - written))
    this.writes.push(frames.slice(0, fit))
    return frames.length - fit
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r))

describe('fan-out', () => {
  it('writes the frames of one microtask run to each holder at once, in publish order', async () => {
    const fanout = new Fanout<FakeSocket>(() => undefined)
    const a = new FakeSocket()
    const b = new FakeSocket()
    fanout.subscribe('t1', a)
    fanout.subscribe('t2', a)
    fanout.subscribe('t1', b)
    expect(fanout.subscribers('t1')).toBe(2)
    fanout.publish('t1', 'one')
    fanout.publish('t2', 'two')
    fanout.publish('t1', 'three')
    expect(a.writes).toEqual([]) // written when the current run of microtasks ends
    await Promise.resolve()
    expect(a.writes).toEqual([['one', 'two', 'three']])
    expect(b.writes).toEqual([['one', 'three']])
    fanout.publish('t2', 'four')
    await turn()
    expect(a.writes).toEqual([['one', 'two', 'three'], ['four']])
    expect(b.writes).toHaveLength(1)
  })

  it('writes what is pending before a frame sent directly', () => {
    const fanout = new Fanout<FakeSocket>(() => undefined)
    const a = new FakeSocket()
    fanout.subscribe('t', a)
    fanout.publish('t', 'update')
    fanout.writePending(a) // what the socket's direct send does first
    expect(a.writes).toEqual([['update']])
    expect(a.pending).toBeNull()
  })

  it('counts refused frames, and skips sockets that left the topic or closed', async () => {
    let dropped = 0
    const fanout = new Fanout<FakeSocket>((n) => (dropped += n))
    const full = new FakeSocket(1)
    const gone = new FakeSocket()
    const closed = new FakeSocket()
    for (const s of [full, gone, closed]) fanout.subscribe('t', s)
    fanout.unsubscribe('t', gone)
    fanout.publish('t', 'x')
    closed.closed = true
    fanout.publish('t', 'y')
    await turn()
    expect(full.writes).toEqual([['x']])
    expect(dropped).toBe(1)
    expect(gone.writes).toEqual([])
    expect(closed.writes).toEqual([])
    fanout.unsubscribe('t', full)
    fanout.unsubscribe('t', closed)
    expect(fanout.subscribers('t')).toBe(0)
  })
})
