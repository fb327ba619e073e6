/**
 * @module
 * The funding interval of each market of a Tardis.dev `derivative_ticker` file, which the file does not
 * state: it is read from the market's `funding_timestamp` (the next settlement time), which steps by one
 * interval at each settlement. The scan (csv-scan.ts) keeps, per market, the smallest step between
 * consecutive distinct values, in constant memory; the interval is that step rounded to 1, 2, 4 or 8 h.
 */

/** Steps below this are jitter in the reported time (not a settlement), ignored. */
export const MIN_FUNDING_STEP_MS = 30 * 60_000

const HOUR_MS = 3_600_000

/** Funding times of one market, as the scan met them (rows in file order). */
export interface FundingSteps {
  /** the last distinct funding time, epoch ms */
  last: number
  /** the smallest step of at least `MIN_FUNDING_STEP_MS` between consecutive distinct times; Infinity: none */
  minStep: number
}

/** Records funding time `ms` (epoch ms) of a market. */
export function addFundingTime(steps: FundingSteps, ms: number): void {
  if (ms === steps.last) return
  if (Number.isFinite(steps.last)) {
    const step = Math.abs(ms - steps.last)
    if (step >= MIN_FUNDING_STEP_MS && step < steps.minStep) steps.minStep = step
  }
  steps.last = ms
}

export function newFundingSteps(): FundingSteps {
  return { last: NaN, minStep: Infinity }
}

/**
 * The interval in hours for a market's smallest step: the nearest of 1, 2, 4, 8 h on a log scale (below
 * 1.41 h → 1, below 2.83 h → 2, below 5.66 h → 4, else 8); null when there is no step.
 */
export function fundingIntervalHours(steps: FundingSteps | undefined): number | null {
  if (!steps || !Number.isFinite(steps.minStep)) return null
  const k = Math.round(Math.log2(steps.minStep / HOUR_MS))
  return 2 ** Math.min(3, Math.max(0, k))
}
