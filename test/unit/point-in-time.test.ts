import { describe, expect, it } from 'vitest'
import { parseMoment, resolvePointInTime } from '../../engine/asof/point-in-time.js'
import { ApiError } from '../../engine/errors.js'
import type { Plan } from '../../engine/access/plans.js'

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0)
const DAY = 86_400_000
const plan = (historyDays: number | null): Plan => ({ name: 'pro', historyDays }) as unknown as Plan

function refusal(f: () => unknown): ApiError {
  try {
    f()
  } catch (e) {
    return e as ApiError
  }
  throw new Error('expected a refusal')
}

describe('point in time', () => {
  it('reads epoch ms and ISO 8601 UTC to the same moment', () => {
    expect(parseMoment('1767225600000', 'as_of')).toBe(Date.UTC(2026, 0, 1))
    expect(parseMoment('2026-01-01T00:00:00Z', 'as_of')).toBe(Date.UTC(2026, 0, 1))
    expect(parseMoment('2026-01-01T00:00Z', 'as_of')).toBe(Date.UTC(2026, 0, 1))
    expect(parseMoment('2026-01-01T00:00:01.5+00:00', 'as_of')).toBe(Date.UTC(2026, 0, 1, 0, 0, 1, 500))
  })

  it('refuses malformed moments naming the accepted forms', () => {
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00+02:00',
      'yesterday',
      '-5'
    ]) {
      const e = refusal(() => parseMoment(bad, 'as_of'))
      expect(e.code).toBe('invalid_parameter')
      expect(e.message).toContain('epoch milliseconds')
      expect(e.message).toContain('ISO 8601 UTC')
    }
  })

  it('is null without as_of, and known_by alone is refused', () => {
    expect(resolvePointInTime({}, null, NOW)).toBeNull()
    expect(refusal(() => resolvePointInTime({ known_by: String(NOW) }, null, NOW)).code).toBe('invalid_parameter')
  })

  it('defaults known_by to as_of and accepts a later known_by', () => {
    expect(resolvePointInTime({ as_of: String(NOW - DAY) }, null, NOW)).toEqual({
      asOfMs: NOW - DAY,
      knownByMs: NOW - DAY
    })
    expect(resolvePointInTime({ as_of: String(NOW - DAY), known_by: String(NOW) }, null, NOW)?.knownByMs).toBe(NOW)
  })

  it('answers 400 for the future and 403 beyond the plan depth, naming it', () => {
    const future = refusal(() => resolvePointInTime({ as_of: String(NOW + 1) }, null, NOW))
    expect(future.status).toBe(400)
    expect(future.message).toContain('in the future')
    const deep = refusal(() => resolvePointInTime({ as_of: String(NOW - 31 * DAY) }, null, NOW))
    expect(deep.status).toBe(403)
    expect(deep.message).toContain('30 days back')
    const pro = refusal(() => resolvePointInTime({ as_of: String(NOW - 400 * DAY) }, plan(365), NOW))
    expect(pro.message).toContain('pro plan reaches 365 days')
    expect(resolvePointInTime({ as_of: String(NOW - 4000 * DAY) }, plan(null), NOW)?.asOfMs).toBe(NOW - 4000 * DAY)
  })
})
