/**
 * @module
 * Deribit option instrument names: `CCY-DMMMYY-STRIKE-C|P`, e.g. `BTC-5JAN25-100000-C`, `XRP_USDC-30JUN23-0d625-C`.
 * Source: Deribit API v2 documentation, "Naming" (docs.deribit.com); the record format is in docs/records.md.
 * - D is the day of month with no leading zero (1 or 2 digits); MMM is JAN..DEC; YY is 20YY.
 * - Options expire at 08:00 UTC of that date (tardis-node's deribit mapper sets `setUTCHours(8)`).
 * - Linear (USDC) options write the decimal point of the strike as `d`: `0d625` is 0.625.
 * Parsing is strict: a name that does not match exactly is `null`, never a guess.
 */

export interface ParsedInstrument {
  /** settlement currency prefix, e.g. `BTC`, `ETH`, `XRP_USDC` (so `BTC` and `BTC_USDC` differ) */
  readonly currency: string
  /** expiry date code exactly as written in the name, e.g. `5JAN25` */
  readonly expiryCode: string
  /** expiry, epoch ms at 08:00 UTC of the coded date */
  readonly expiryMs: number
  /** strike, USD per coin (USDC per coin for linear options); always > 0 */
  readonly strike: number
  readonly type: 'call' | 'put'
}

/** Deribit settles options at 08:00 UTC */
export const EXPIRY_HOUR_UTC = 8

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const
const MONTH_INDEX: ReadonlyMap<string, number> = new Map(MONTHS.map((m, i) => [m, i]))

/** 1-2 digit day without a leading zero, three-letter month, two-digit year */
const EXPIRY_CODE_RE = /^([1-9]\d?)([A-Z]{3})(\d{2})$/
/** currency, expiry code (as above), strike (digits with an optional `d` decimal point), C or P; nothing else */
const INSTRUMENT_RE = /^([A-Z0-9]+(?:_[A-Z0-9]+)?)-(([1-9]\d?)([A-Z]{3})(\d{2}))-(\d+(?:d\d+)?)-([CP])$/
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

/** epoch ms at 08:00 UTC of day/month-name/two-digit-year; null when the date does not exist */
function expiryMsOf(dd: string, mmm: string, yy: string): number | null {
  const month = MONTH_INDEX.get(mmm)
  if (month === undefined) return null
  const day = Number(dd)
  const year = 2000 + Number(yy)
  // every 4th year is a leap year within 2000..2099 (2000 itself is one)
  const days = month === 1 && year % 4 === 0 ? 29 : DAYS_IN_MONTH[month]!
  return day > days ? null : Date.UTC(year, month, day, EXPIRY_HOUR_UTC)
}

/**
 * Epoch ms of 08:00 UTC on the date of an expiry code such as `5JAN25` or `27DEC24`; null when the code is
 * malformed, the month is unknown, or the day does not exist in that month (`30FEB25`, `29FEB25`).
 */
export function parseExpiryCode(code: string): number | null {
  const m = EXPIRY_CODE_RE.exec(code)
  return m === null ? null : expiryMsOf(m[1]!, m[2]!, m[3]!)
}

/**
 * Expiry code of the UTC date of `ms`, Deribit style (no leading zero on the day): `5JAN25`.
 * The time of day is ignored, so it inverts `parseExpiryCode`. Throws RangeError outside years 2000..2099,
 * which a two-digit year cannot name.
 */
export function formatExpiryCode(ms: number): string {
  const d = new Date(ms)
  const year = d.getUTCFullYear()
  if (!Number.isFinite(ms) || year < 2000 || year > 2099) {
    throw new RangeError(`expiry must be a date in 2000..2099, got ${ms}`)
  }
  return `${d.getUTCDate()}${MONTHS[d.getUTCMonth()]}${String(year % 100).padStart(2, '0')}`
}

/** Parse a Deribit option name; null on anything malformed (futures, perps, combos, lowercase, bad dates). */
export function parseInstrument(name: string): ParsedInstrument | null {
  const m = INSTRUMENT_RE.exec(name)
  if (m === null) return null
  const expiryMs = expiryMsOf(m[3]!, m[4]!, m[5]!)
  if (expiryMs === null) return null
  const strikeText = m[6]!
  const strike = Number(strikeText.includes('d') ? strikeText.replace('d', '.') : strikeText)
  if (!(strike > 0) || !Number.isFinite(strike)) return null
  return { currency: m[1]!, expiryCode: m[2]!, expiryMs, strike, type: m[7] === 'C' ? 'call' : 'put' }
}
