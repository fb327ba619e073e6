/**
 * @module
 * Max pain of one expiry (service spec, "Max pain rule"): every strike of the expiry is a candidate; the payout
 * at candidate K is what option holders would receive if the underlying settled at K:
 *
 *   payout(K) = Σ_{calls, strike < K} (K − strike) × callOi + Σ_{puts, strike > K} (strike − K) × putOi
 *
 * The lowest payout wins; ties go to the lower strike. Strikes are USD per coin and OI is in coins (one Deribit
 * BTC/ETH option contract = 1 coin), so the payout is already USD. A descriptive OI statistic, not a forecast.
 *
 * `maxPain` is O(n log n): sort, merge duplicate strikes, then prefix sums, since for sorted strikes s_i
 *   Σ_{i<j} (K − s_i) c_i = K × Σ_{i<j} c_i − Σ_{i<j} s_i c_i   (and symmetrically for puts above K).
 */

/** open interest at one strike of one expiry; several rows may share a strike (they are summed) */
export interface StrikeOi {
  /** USD per coin, > 0 */
  readonly strike: number
  /** call open interest, coins */
  readonly callOi: number
  /** put open interest, coins */
  readonly putOi: number
}

export interface MaxPainResult {
  /** the max-pain strike, USD per coin */
  readonly strike: number
  /** total payout to holders at that strike, USD (coins × USD per coin) */
  readonly payout: number
}

/**
 * Payouts closer than this fraction of the best payout count as a tie (lower strike wins). Sums of OI such as
 * 0.1 coin are inexact in binary floating point, and the prefix-sum form rounds differently from the direct
 * sum; 1e-10 of a ~1e9 USD payout is ~0.1 USD, far above rounding noise and far below any real difference.
 */
const TIE_RELATIVE_TOLERANCE = 1e-10

/** true when `payout` beats `best` by more than rounding noise; scanning strikes upward keeps ties low */
function isLower(payout: number, best: number): boolean {
  return payout < best - TIE_RELATIVE_TOLERANCE * Math.abs(best)
}

/** Max pain of one expiry in O(n log n); null when there are no rows. Does not modify `rows`. */
export function maxPain(rows: readonly StrikeOi[]): MaxPainResult | null {
  if (rows.length === 0) return null
  const sorted = rows.slice().sort((a, b) => a.strike - b.strike)

  // merge rows that share a strike
  const strikes: number[] = []
  const calls: number[] = []
  const puts: number[] = []
  for (const row of sorted) {
    const last = strikes.length - 1
    if (last >= 0 && strikes[last] === row.strike) {
      calls[last]! += row.callOi
      puts[last]! += row.putOi
    } else {
      strikes.push(row.strike)
      calls.push(row.callOi)
      puts.push(row.putOi)
    }
  }
  const n = strikes.length

  // putOiAbove[j] = Σ_{i>j} p_i, putNotionalAbove[j] = Σ_{i>j} s_i p_i (suffix sums, exact zero at the top)
  const putOiAbove = new Float64Array(n)
  const putNotionalAbove = new Float64Array(n)
  for (let j = n - 2; j >= 0; j--) {
    putOiAbove[j] = putOiAbove[j + 1]! + puts[j + 1]!
    putNotionalAbove[j] = putNotionalAbove[j + 1]! + strikes[j + 1]! * puts[j + 1]!
  }

  let callOiBelow = 0 // Σ_{i<j} c_i
  let callNotionalBelow = 0 // Σ_{i<j} s_i c_i
  let best: MaxPainResult | null = null
  for (let j = 0; j < n; j++) {
    const k = strikes[j]!
    const callPayout = k * callOiBelow - callNotionalBelow
    const putPayout = putNotionalAbove[j]! - k * putOiAbove[j]!
    // each term is >= 0 exactly; clamp the rounding of the differences
    const payout = Math.max(0, callPayout) + Math.max(0, putPayout)
    if (best === null || isLower(payout, best.payout)) best = { strike: k, payout }
    callOiBelow += calls[j]!
    callNotionalBelow += k * calls[j]!
  }
  return best
}

/** Payout at candidate `k` straight from the definition, O(n). */
export function payoutAt(rows: readonly StrikeOi[], k: number): number {
  let payout = 0
  for (const row of rows) {
    if (row.strike < k) payout += (k - row.strike) * row.callOi
    else if (row.strike > k) payout += (row.strike - k) * row.putOi
  }
  return payout
}

/** The O(n²) definition, same tie rule as `maxPain`; the reference the fast version is tested against. */
export function maxPainBruteForce(rows: readonly StrikeOi[]): MaxPainResult | null {
  const candidates = [...new Set(rows.map((r) => r.strike))].sort((a, b) => a - b)
  let best: MaxPainResult | null = null
  for (const k of candidates) {
    const payout = payoutAt(rows, k)
    if (best === null || isLower(payout, best.payout)) best = { strike: k, payout }
  }
  return best
}
