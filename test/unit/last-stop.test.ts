/** The previous run's end as /v1/health reports it (server/last-stop.ts), over real files. */
import { afterEach, describe, expect, it } from 'vitest'
import { recordStop, takeLastStop } from '../../server/last-stop.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const dirs: { cleanup(): void }[] = []
afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()))
function dataDir(): string {
  const d = tmpDir('tw-last-stop-')
  dirs.push(d)
  return d.dir
}

describe('last stop record', () => {
  it('is null on a first start, and a run that never recorded its end was killed', () => {
    const dir = dataDir()
    expect(takeLastStop(dir)).toBeNull()
    expect(takeLastStop(dir)).toEqual({ kind: 'killed', at: expect.any(String) })
  })

  it('a clean stop and a forced exit are reported once, at the next start', () => {
    const dir = dataDir()
    takeLastStop(dir)
    recordStop(dir, { kind: 'clean' })
    expect(takeLastStop(dir)).toEqual({ kind: 'clean', at: expect.any(String) })
    const left = { queued_rows: 120, usage_calls: 3, webhooks: { pending: 2, in_flight: 1, writer_queued: 0 } }
    recordStop(dir, { kind: 'forced', reason: 'SIGTERM during the stop', left_unwritten: left })
    expect(takeLastStop(dir)).toEqual({
      kind: 'forced',
      at: expect.any(String),
      reason: 'SIGTERM during the stop',
      left_unwritten: left
    })
    // the start above marked its own run: it has not recorded an end yet
    expect(takeLastStop(dir)?.kind).toBe('killed')
  })
})
