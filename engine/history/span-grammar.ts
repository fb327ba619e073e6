/**
 * @module
 * JSON-Schema patterns of the span notation (engine/history/span.ts) as each endpoint reads it: any span,
 * spans of at most months, and bucket widths of whole hours (funding history and the hourly aggregates),
 * with or without years. Each pattern admits exactly the texts its parser takes (test/unit/span-grammar.test.ts
 * checks every count and unit); no lookaround, so test generators can draw from them.
 */

/** A count: 1 to SPAN_MAX_COUNT (100000), without leading zeros. */
const COUNT = '(?:[1-9][0-9]{0,4}|100000)'

/** Digits of each residue mod 3: any digit, a leading digit (not 0), a last digit that is even. */
const ANY = ['[0369]', '[147]', '[258]'] as const
const LEADING = ['[369]', '[147]', '[258]'] as const
const EVEN_LAST = ['[06]', '4', '[28]'] as const

const mod3 = (r: number): number => ((r % 3) + 3) % 3

/** `k` digits whose sum is `r` mod 3, or null when there is none (k = 0, r != 0). */
function digitsSumming(k: number, r: number): string | null {
  if (k === 0) return r === 0 ? '' : null
  const out: string[] = []
  for (let d = 0; d < 3; d++) {
    const rest = digitsSumming(k - 1, mod3(r - d))
    if (rest !== null) out.push(`${ANY[d]}${rest}`)
  }
  return `(?:${out.join('|')})`
}

/**
 * Multiples of 6 written with `len` digits, no leading zero: an even last digit and a digit sum divisible
 * by 3 (6 = 2 x 3).
 */
function multiplesOfSixOfLength(len: number): string {
  if (len === 1) return '6'
  const out: string[] = []
  for (let a = 0; a < 3; a++) {
    for (let c = 0; c < 3; c++) {
      const middle = digitsSumming(len - 2, mod3(-a - c))
      if (middle !== null) out.push(`${LEADING[a]}${middle}${EVEN_LAST[c]}`)
    }
  }
  return `(?:${out.join('|')})`
}

/**
 * Minute counts that are whole hours within the count limit: multiples of 60 from 60 to 99960, i.e. a
 * multiple of 6 of 1 to 4 digits followed by 0.
 */
const WHOLE_HOUR_MINUTES = `(?:${[1, 2, 3, 4].map(multiplesOfSixOfLength).join('|')})0m`

/** Any span: `90m`, `12h`, `30d`, `2w`, `6M`, `1y` (parseSpan). */
export const SPAN_PATTERN = `^${COUNT}[mhdwMy]$`

/** A span of at most months: no years (aligned data intervals, resample targets). */
export const MONTHS_SPAN_PATTERN = `^${COUNT}[mhdwM]$`

/** A bucket width of whole hours, years included (funding intervals, parseFundingInterval). */
export const WHOLE_HOURS_PATTERN = `^(?:${COUNT}[hdwMy]|${WHOLE_HOUR_MINUTES})$`

/** A bucket width of whole hours, days, weeks or months (whale and snapshot grids, parseInterval). */
export const WHOLE_HOURS_MONTHS_PATTERN = `^(?:${COUNT}[hdwM]|${WHOLE_HOUR_MINUTES})$`
