/** Which deliveries of SIGINT/SIGTERM are one stop and which force (server/stop-signals.ts), on an injected clock. */
import { describe, expect, it } from 'vitest'
import { REPEAT_WINDOW_MS, StopSignals } from '../../server/stop-signals.js'

function at(times: number[]): () => number {
  let i = 0
  return () => times[Math.min(i++, times.length - 1)]!
}

describe('StopSignals', () => {
  it("counts the terminal's and npm's copies of one Ctrl-C once", () => {
    const s = new StopSignals(at([1_000, 1_003]))
    expect(s.classify('SIGINT')).toBe('stop')
    expect(s.classify('SIGINT')).toBe('repeat')
  })

  it('keeps counting repeats that follow each other within the window (a held key)', () => {
    const w = REPEAT_WINDOW_MS
    const s = new StopSignals(at([0, w, 2 * w, 3 * w]))
    expect(['SIGTERM', 'SIGTERM', 'SIGTERM', 'SIGTERM'].map((x) => s.classify(x as NodeJS.Signals))).toEqual([
      'stop',
      'repeat',
      'repeat',
      'repeat'
    ])
  })

  it('forces on the same signal sent again after the window (a second Ctrl-C)', () => {
    const s = new StopSignals(at([0, 2, REPEAT_WINDOW_MS + 3]))
    expect(s.classify('SIGINT')).toBe('stop')
    expect(s.classify('SIGINT')).toBe('repeat')
    expect(s.classify('SIGINT')).toBe('force')
  })

  it('forces on a different signal at once', () => {
    const s = new StopSignals(at([0, 1]))
    expect(s.classify('SIGINT')).toBe('stop')
    expect(s.classify('SIGTERM')).toBe('force')
    const t = new StopSignals(at([0, 1]))
    expect(t.classify('SIGTERM')).toBe('stop')
    expect(t.classify('SIGINT')).toBe('force')
  })
})
