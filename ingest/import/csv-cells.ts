/**
 * @module
 * Byte-level cell checks for `csv-scan.ts`: each returns null when the cell `buf[s..e)` passes, else the
 * reason. They read bytes in place, so checking a line allocates nothing.
 */
import type { CellCheck } from './csv-layout.js'

const D0 = 48
const D9 = 57
const MINUS = 45
const DOT = 46
const QUOTE = 34

/**
 * The largest magnitude an integer column holds, as decimal digits, by its ClickHouse type (`Nullable(...)`
 * read as its inner type): the engine refuses a wider value (stage-sql.ts reads integers as text through
 * `to<Type>OrNull`), and so does the scan. A signed type's negative bound is one more (`-128` for Int8).
 */
const INT_MAX: Readonly<Record<string, string>> = {
  UInt8: '255',
  UInt16: '65535',
  UInt32: '4294967295',
  UInt64: '18446744073709551615',
  Int8: '127',
  Int16: '32767',
  Int32: '2147483647',
  Int64: '9223372036854775807'
}

/** The integer type of a column's `chType` (`UInt64` of `Nullable(UInt64)`). */
export const intType = (chType: string): string => chType.replace(/^Nullable\((.*)\)$/, '$1')

/** The largest value of an integer column's type, as digits; throws for a type that is not an integer's. */
export function intMax(chType: string): string {
  const max = INT_MAX[intType(chType)]
  if (max === undefined) throw new Error(`not an integer column type: ${chType}`)
  return max
}

/** An integer column's bound and the words of its refusal (`intBound`). */
export interface IntBound {
  /** the largest value, as digits */
  readonly max: string
  /** the reason a cell is refused (the scan's and the engine's words) */
  readonly reason: string
}

/** The bound of a `uint` or `int` column of ClickHouse type `chType`. */
export function intBound(check: 'uint' | 'int', chType: string): IntBound {
  const max = intMax(chType)
  const min = `-${max.slice(0, -1)}${Number(max.at(-1)) + 1}`
  return {
    max,
    reason:
      check === 'uint' ? `must be a non-negative integer up to ${max}` : `must be an integer from ${min} to ${max}`
  }
}

const UINT64 = intBound('uint', 'UInt64')
const INT64 = intBound('int', 'Int64')

/**
 * Digits `buf[s..e)` at most `max` (digits without leading zeros), leading zeros allowed; `orOneMore`
 * also allows `max` + 1 (a signed type's negative bound, whose last digit is never 9).
 */
function digitsUpTo(buf: Uint8Array, s: number, e: number, max: string, orOneMore: boolean): boolean {
  if (!digits(buf, s, e)) return false
  while (e - s > 1 && buf[s] === D0) s++
  const n = e - s
  if (n !== max.length) return n < max.length
  for (let i = 0; i < n; i++) {
    const d = buf[s + i]!
    const m = max.charCodeAt(i) + (orOneMore && i === n - 1 ? 1 : 0)
    if (d !== m) return d < m
  }
  return true
}

function digits(buf: Uint8Array, s: number, e: number): boolean {
  if (s >= e) return false
  for (let i = s; i < e; i++) {
    const c = buf[i]!
    if (c < D0 || c > D9) return false
  }
  return true
}

/** `12`, `12.5`, `.5`, `1e-8`, `1.5E+3`: at least one digit in the mantissa. */
function decimal(buf: Uint8Array, s: number, e: number): boolean {
  let i = s
  let seen = false
  while (i < e && buf[i]! >= D0 && buf[i]! <= D9) (i++, (seen = true))
  if (i < e && buf[i] === DOT) {
    i++
    while (i < e && buf[i]! >= D0 && buf[i]! <= D9) (i++, (seen = true))
  }
  if (!seen) return false
  if (i < e && (buf[i] === 101 || buf[i] === 69)) {
    i++
    if (i < e && (buf[i] === 43 || buf[i] === MINUS)) i++
    return digits(buf, i, e)
  }
  return i === e
}

function lowerIs(buf: Uint8Array, s: number, e: number, word: string): boolean {
  if (e - s !== word.length) return false
  for (let i = 0; i < word.length; i++) if ((buf[s + i]! | 0x20) !== word.charCodeAt(i)) return false
  return true
}

function noQuote(buf: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) if (buf[i] === QUOTE) return false
  return true
}

/** `YYYY-MM-DD HH:MM:SS` */
function datetime(buf: Uint8Array, s: number, e: number): boolean {
  if (e - s !== 19) return false
  for (let i = 0; i < 19; i++) {
    const c = buf[s + i]!
    const sep = i === 4 || i === 7 ? MINUS : i === 10 ? 32 : i === 13 || i === 16 ? 58 : -1
    if (sep === -1 ? c < D0 || c > D9 : c !== sep) return false
  }
  return true
}

/**
 * Null when the cell `buf[s..e)` passes `check`, else the reason. `bound` is the `intBound` of a `uint` or
 * `int` column (its type's; UInt64's or Int64's when absent).
 */
export function checkCell(check: CellCheck, buf: Uint8Array, s: number, e: number, bound?: IntBound): string | null {
  switch (check) {
    case 'uint': {
      const b = bound ?? UINT64
      return digitsUpTo(buf, s, e, b.max, false) ? null : b.reason
    }
    case 'int': {
      const b = bound ?? INT64
      const neg = buf[s] === MINUS
      return digitsUpTo(buf, neg ? s + 1 : s, e, b.max, neg) ? null : b.reason
    }
    case 'udec':
      return decimal(buf, s, e) ? null : 'must be a non-negative number'
    case 'dec':
      return decimal(buf, buf[s] === MINUS ? s + 1 : s, e) ? null : 'must be a number'
    case 'bool':
      return lowerIs(buf, s, e, 'true') || lowerIs(buf, s, e, 'false') ? null : 'must be true or false'
    case 'word':
      return s < e && noQuote(buf, s, e) ? null : 'must be a non-empty value without quotes'
    case 'side':
      return lowerIs(buf, s, e, 'buy') || lowerIs(buf, s, e, 'sell') ? null : 'must be buy or sell'
    case 'datetime':
      return datetime(buf, s, e) ? null : 'must be a UTC time YYYY-MM-DD HH:MM:SS'
    case 'any':
      return noQuote(buf, s, e) ? null : 'quoted cells are not supported'
  }
}

/** The unsigned integer in `buf[s..e)` (already checked); exact below 2^53. */
export function readUint(buf: Uint8Array, s: number, e: number): number {
  let v = 0
  for (let i = s; i < e; i++) v = v * 10 + (buf[i]! - D0)
  return v
}

/** Epoch ms of a checked `YYYY-MM-DD HH:MM:SS` cell. */
export function readDatetime(buf: Uint8Array, s: number): number {
  const n = (o: number, len: number): number => readUint(buf, s + o, s + o + len)
  return Date.UTC(n(0, 4), n(5, 2) - 1, n(8, 2), n(11, 2), n(14, 2), n(17, 2))
}
