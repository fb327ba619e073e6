/**
 * @module
 * Decimal text as the TSV encoder would print it, read from bytes. The encoder writes a price or size as
 * `String(Number(text))`; for a byte-level replay path to write the venue's text instead, the two must be
 * the same. They are for a plain positive decimal (`digits` or `digits.digits`, no sign, no exponent, no
 * leading zero before another integer digit) once the fraction's trailing zeros (and a bare `.`) are
 * dropped, when it has at most 15 significant digits, fewer than 17 integer digits and at most 5 zeros
 * right after `0.`:
 * - 15 significant digits always survive a trip through a double (DBL_DIG), and no shorter decimal maps to
 *   the same double, so the shortest round-trip text JS prints has exactly those digits;
 * - JS prints a number without exponent from 1e-6 up to 1e21, as `0.00000ddd` below 1 (at most 5 zeros).
 * Anything else (zero, `1e5`, `.5`, `+1`, `007`, more digits) is refused and left to the general path.
 * test/unit/decimal-text.test.ts checks the rule against `String(Number(text))` on random texts.
 */

const DOT = 46
const ZERO = 48
const NINE = 57
const QUOTE = 34
/** DBL_DIG: decimal digits a double always keeps */
const MAX_SIGNIFICANT = 15
/** integer digits: far below 1e21, where JS switches to exponent notation */
const MAX_INT_DIGITS = 16
/** zeros after `0.` that JS still prints without an exponent (1e-6 is `0.000001`) */
const MAX_LEADING_FRACTION_ZEROS = 5

/** Reads one quoted decimal; reused for every field (no allocation). */
export class DecimalText {
  /** end (exclusive) of the text to write: the input without the fraction's trailing zeros */
  end = 0
  /** index of the closing quote */
  quote = 0

  /**
   * Reads the decimal starting at `i` (just after its opening quote) up to its closing quote. True when
   * `b[i..end)` is exactly `String(Number(text))` and the number is above 0; false otherwise.
   */
  read(b: Uint8Array, i: number): boolean {
    const start = i
    let c = b[i]
    if (c === ZERO) {
      c = b[++i]
    } else {
      while (c !== undefined && c >= ZERO && c <= NINE) c = b[++i]
    }
    const intDigits = i - start
    if (intDigits === 0 || intDigits > MAX_INT_DIGITS) return false
    // digit positions (the dot skipped) of the first and last non-zero digit
    let first = -1
    let last = -1
    for (let p = 0; p < intDigits; p++) {
      if (b[start + p] !== ZERO) {
        if (first < 0) first = p
        last = p
      }
    }
    let end = i
    if (c === DOT) {
      c = b[++i]
      let p = intDigits
      const fracStart = i
      while (c !== undefined && c >= ZERO && c <= NINE) {
        if (c !== ZERO) {
          if (first < 0) first = p
          last = p
          end = i + 1
        }
        p++
        c = b[++i]
      }
      if (i === fracStart) return false // `1.`
    }
    if (c !== QUOTE || first < 0) return false // not closed by a quote, or zero
    if (last - first + 1 > MAX_SIGNIFICANT) return false
    if (intDigits === 1 && b[start] === ZERO && first - 1 > MAX_LEADING_FRACTION_ZEROS) return false
    this.end = end
    this.quote = i
    return true
  }
}
