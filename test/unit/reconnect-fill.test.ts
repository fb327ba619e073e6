import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { ReconnectFiller } from '../../ingest/sources/feed/reconnect-fill.js'

/** A filler whose fetches are held until released; `asked` lists the paths in request order. */
function harness(maxPending: number, fail: ReadonlySet<string> = new Set()) {
  const asked: string[] = []
  const held: (() => void)[] = []
  const filler = new ReconnectFiller({
    venue: 'test',
    log: silentLogger(),
    maxPending,
    path: (s) => `/trades?symbol=${s}`,
    fetch: (path) =>
      new Promise((resolve) => {
        asked.push(path)
        held.push(() => resolve(fail.has(path) ? null : '{}'))
      })
  })
  return { filler, asked, held }
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 5))

describe('ReconnectFiller', () => {
  it('queues each waiting market once, in order, and counts windows beyond the cap as unfilled', async () => {
    const { filler, asked, held } = harness(2)
    const abort = new AbortController()
    const run = filler.run(abort.signal)
    filler.opened('A') // taken at once: the wait list is empty again
    await settle()
    filler.opened('B')
    filler.opened('B') // already waiting: served by the same fetch
    filler.opened('C')
    filler.opened('D') // B and C wait: full
    expect([filler.found, filler.unfilled]).toEqual([5, 1])
    for (let i = 0; i < 3; i++) {
      held.shift()?.()
      await settle()
    }
    expect(asked).toEqual(['/trades?symbol=A', '/trades?symbol=B', '/trades?symbol=C'])
    abort.abort()
    held.shift()?.()
    await run
  })

  it('counts recovered trades, short pages and failed fetches', async () => {
    const { filler, held } = harness(10, new Set(['/trades?symbol=B']))
    const abort = new AbortController()
    const run = filler.run(abort.signal)
    filler.opened('A')
    filler.opened('B')
    for (let i = 0; i < 2; i++) {
      await settle()
      held.shift()?.()
    }
    await settle()
    filler.served('A', 7, true)
    filler.served('C', 2, false)
    expect([filler.found, filler.filled, filler.unfilled]).toEqual([2, 9, 2]) // B failed, C's page was short
    abort.abort()
    await run
  })
})
