/**
 * @module
 * Suggestions for an unknown symbol: the known base assets nearest to it by edit distance (insertions,
 * deletions, substitutions and swaps of two adjacent letters each cost 1). Runs on the error path only.
 */

/** Suggestions offered at most: enough to catch a typo without listing the directory. */
const MAX_SUGGESTIONS = 3

/**
 * Farthest a suggestion may be: one edit for names of up to 5 letters (BTCX → BTC; NOPE is not DOGE), two
 * beyond (AVAXXX → AVAX).
 */
function maxDistance(name: string): number {
  return name.length <= 5 ? 1 : 2
}

/** Longest name compared; longer names are never suggested nor given suggestions (symbols are at most 40). */
const MAX_NAME = 64
/** Three DP rows reused by every call (the error path must stay cheap: an unknown name is compared with every base). */
const rows = [new Int32Array(MAX_NAME + 1), new Int32Array(MAX_NAME + 1), new Int32Array(MAX_NAME + 1)] as const

/** Optimal-string-alignment distance of `a` and `b`, or `limit + 1` as soon as it must exceed `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit || a.length > MAX_NAME || b.length > MAX_NAME) return limit + 1
  let [prev2, prev, row] = rows
  for (let j = 0; j <= b.length; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    row[0] = i
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost)
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      ) {
        d = Math.min(d, prev2[j - 2]! + 1)
      }
      row[j] = d
      if (d < best) best = d
    }
    if (best > limit) return limit + 1
    ;[prev2, prev, row] = [prev, row, prev2]
  }
  return prev[b.length]!
}

/**
 * The known bases nearest to `name` (upper-case), alphabetical: only those at the smallest distance found
 * (BTCX suggests BTC, not also BCH two edits away); empty when none is close.
 */
export function nearestBases(name: string, bases: Iterable<string>): string[] {
  let limit = maxDistance(name)
  let near: string[] = []
  for (const base of bases) {
    if (base === name) continue
    const d = editDistance(name, base, limit)
    if (d < limit) {
      limit = d
      near = [base]
    } else if (d === limit) near.push(base)
  }
  return near.sort().slice(0, MAX_SUGGESTIONS)
}
