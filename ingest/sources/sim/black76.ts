/**
 * @module
 * Black-76 option prices (undiscounted: Deribit marks are quoted at zero rate against the forward), and
 * the standard normal CDF they need. Units: forward and strike in USD, time in years, volatility as a
 * decimal (0.55 = 55%); the result is in USD per coin.
 */

/** Abramowitz & Stegun 7.1.26 coefficients for erfc; absolute error of the CDF < 1.5e-7 */
const P = 0.3275911
const A1 = 0.254829592
const A2 = -0.284496736
const A3 = 1.421413741
const A4 = -1.453152027
const A5 = 1.061405429

/** standard normal cumulative distribution function */
export function normCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2
  const t = 1 / (1 + P * z)
  const erfc = t * (A1 + t * (A2 + t * (A3 + t * (A4 + t * A5)))) * Math.exp(-z * z)
  return x >= 0 ? 1 - 0.5 * erfc : 0.5 * erfc
}

/** Black-76 price of a call or put; requires forward, strike, years and vol > 0 */
export function black76(forward: number, strike: number, years: number, vol: number, isCall: boolean): number {
  const sd = vol * Math.sqrt(years)
  const d1 = (Math.log(forward / strike) + 0.5 * sd * sd) / sd
  const d2 = d1 - sd
  return isCall ? forward * normCdf(d1) - strike * normCdf(d2) : strike * normCdf(-d2) - forward * normCdf(-d1)
}
