/**
 * The replay byte path writes a price or size as the venue's text (trailing fraction zeros dropped) only
 * when that is exactly what the TSV encoder would print, `String(Number(text))`. These properties check
 * the rule against JS itself on random texts: whatever `DecimalText.read` accepts prints the same, and the
 * usual venue shapes (fixed decimals of prices and sizes) are accepted.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DecimalText } from '../../ingest/record/decimal-text.js'

const dec = new DecimalText()

/** `text` as a quoted field's bytes; the result of `read` and the text it would write. */
function readText(text: string): { ok: boolean; out: string } {
  const b = Buffer.from(`${text}"`, 'latin1')
  const ok = dec.read(b, 0)
  return { ok, out: ok ? b.toString('latin1', 0, dec.end) : '' }
}

const accepted = (text: string): void => {
  const { ok, out } = readText(text)
  expect(ok, text).toBe(true)
  expect(out, text).toBe(String(Number(text)))
}

describe('DecimalText', () => {
  it('writes exactly what String(Number(text)) prints, for every text it accepts', () => {
    const chars = fc.constantFrom('0', '0', '0', '1', '5', '9', '.', '.', 'e', '-', '+', ' ', 'x')
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 24 }), (cs) => {
        const text = cs.join('')
        const { ok, out } = readText(text)
        if (ok) {
          expect(Number(text)).toBeGreaterThan(0)
          expect(out).toBe(String(Number(text)))
          expect(dec.quote).toBe(text.length)
        }
      }),
      { numRuns: 20_000 }
    )
  })

  it('accepts fixed-decimal prices and sizes of up to 15 significant digits, trailing zeros dropped', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e12, noNaN: true }), fc.integer({ min: 0, max: 8 }), (x, d) => {
        const text = x.toFixed(d)
        const digits = text.replace('.', '').replace(/^0+/, '').replace(/0+$/, '')
        if (Number(text) > 0 && digits.length <= 15) accepted(text)
      }),
      { numRuns: 20_000 }
    )
    for (const t of ['97000.10', '97000.00', '97000', '0.5', '0.000001', '0.0010', '1', '10', '123456789012345'])
      accepted(t)
  })

  it('refuses zero, signs, exponents, bare dots, leading zeros, too many digits and open quotes', () => {
    for (const t of [
      '0',
      '0.000',
      '-1',
      '+1',
      '1e5',
      '1E5',
      '.5',
      '5.',
      '007',
      '00.5',
      '0.0000001', // 1e-7: JS prints an exponent
      '1234567890123456', // 16 significant digits
      '0.1234567890123456',
      '12345678901234567.5',
      ' 1',
      '1 ',
      '',
      'NaN',
      'Infinity'
    ]) {
      expect(readText(t).ok, t).toBe(false)
    }
    expect(dec.read(Buffer.from('1.5'), 0)).toBe(false) // no closing quote
  })
})
