import { describe, expect, it } from 'vitest'
import { addFundingTime, fundingIntervalHours, newFundingSteps } from '../../ingest/import/funding-interval.js'

const H = 3_600_000

function interval(times: number[]): number | null {
  const steps = newFundingSteps()
  for (const t of times) addFundingTime(steps, t)
  return fundingIntervalHours(steps)
}

describe('funding interval inference', () => {
  it('takes the smallest step between consecutive distinct funding times, rounded to 1, 2, 4 or 8 h', () => {
    expect(interval([0, 0, 8 * H, 8 * H, 16 * H])).toBe(8)
    expect(interval([0, 4 * H, 12 * H])).toBe(4) // a gap (missing settlement) does not hide the interval
    expect(interval([0, H, 2 * H])).toBe(1)
    expect(interval([0, 2 * H])).toBe(2)
    expect(interval([0, 3 * H])).toBe(4) // log scale: 3 h is nearer 4 than 2
    expect(interval([0, 0.75 * H])).toBe(1)
    expect(interval([0, 24 * H])).toBe(8) // over 8 h: capped
    expect(interval([8 * H, 0, 8 * H])).toBe(8) // out of order rows
  })

  it('is unknown with fewer than two distinct times; steps under 30 minutes are jitter', () => {
    expect(interval([])).toBeNull()
    expect(interval([8 * H, 8 * H])).toBeNull()
    expect(interval([8 * H, 8 * H + 1000])).toBeNull()
    expect(interval([0, 1000, 8 * H])).toBe(8)
  })
})
