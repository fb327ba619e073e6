/**
 * Query parameters for fuzzing the historical routes (test/integration/history-fuzz.test.ts), drawn per a
 * route's query schema so a new parameter is fuzzed without edits here. One anchor time per request, and
 * the request's times drawn near it (or anywhere): independent draws from the int64 range would almost
 * never form a range a handler accepts, and the edges worth hitting are in the handlers' range and bucket
 * arithmetic, not only in the validator. Three requests in four are clean (values the validator accepts,
 * ranges made plausible), one in four dirty (malformed, out-of-range and random text too).
 */
import fc from 'fast-check'
import type { TObject } from '@sinclair/typebox'
import type { Route } from '../../server/http/types.js'

type Json = Record<string, unknown>

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
/** The start of the current UTC day: values "near now" are offsets from it, so a seed draws the same all day. */
export const TODAY = Math.floor(Date.now() / DAY) * DAY

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
/** The epoch-ms schema bound (schemas/api/history.ts) */
const MAX_EPOCH_MS = 9_999_999_999_999
/** The last ms a DateTime column holds (2106-02-07 06:28:15.999) */
const DATETIME_END_MS = 2 ** 32 * 1000 - 1
const BOUNDARIES = [
  0,
  1,
  -1,
  999,
  1_000,
  1_001,
  MIN - 1,
  HOUR - 1,
  HOUR,
  HOUR + 1,
  DAY - 1,
  DAY,
  4 * DAY,
  31 * DAY,
  366 * DAY,
  MAX_EPOCH_MS,
  MAX_EPOCH_MS + 1,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32 - 1,
  2 ** 32,
  DATETIME_END_MS,
  DATETIME_END_MS + 1,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  10_000,
  10_001,
  1_000_000
]

/** Integers as text: anywhere in int64, at the edges, and malformed. */
const anyIntegerText = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String),
  fc.constantFrom(String(INT64_MIN), String(INT64_MAX), String(INT64_MAX + 1n), '1' + '0'.repeat(30)),
  fc.constantFrom(...BOUNDARIES.map(String)),
  fc.constantFrom('', ' 1', '1.5', '1e3', '0x10', '+5', '-0', '00000000000000001', 'NaN', 'abc', '1,2')
)

/** The anchor of a request's times, epoch ms: near 1970, near now, near 2106, near the schema's maximum. */
const anchorMs = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 40 * DAY }) },
  fc.integer({ min: 0, max: 800 * DAY }),
  fc.integer({ min: -800 * DAY, max: 2 * DAY }).map((d) => TODAY + d),
  fc.integer({ min: -800, max: 2 }).map((h) => TODAY + h * HOUR),
  fc.integer({ min: -40 * DAY, max: 40 * DAY }).map((d) => DATETIME_END_MS + 1 + d),
  fc.integer({ min: 0, max: 40 * DAY }).map((d) => MAX_EPOCH_MS - d),
  fc.integer({ min: 0, max: MAX_EPOCH_MS }),
  fc.constantFrom(...BOUNDARIES)
)

/** Offsets from the anchor: none, whole buckets of every width, a few ms either side, anything to 2 years. */
const offsetMs = fc.oneof(
  fc.constant(0),
  fc
    .tuple(
      fc.integer({ min: -1000, max: 1000 }),
      fc.constantFrom(MIN, 5 * MIN, 15 * MIN, HOUR, 4 * HOUR, DAY, 7 * DAY, 30 * DAY)
    )
    .map(([n, w]) => n * w),
  fc.integer({ min: -2, max: 2 }),
  fc.integer({ min: -731 * DAY, max: 731 * DAY })
)

/** An epoch-ms parameter near the request's anchor: clean, within the schema's range; dirty, also anything. */
const epochText = (anchor: number, dirty: boolean) =>
  dirty
    ? fc.oneof({ weight: 2, arbitrary: offsetMs.map((o) => String(anchor + o)) }, anyIntegerText)
    : offsetMs.map((o) => String(Math.min(Math.max(anchor + o, 0), MAX_EPOCH_MS)))

/** A bounded count (limit): inside its range; in a dirty request also at and past its ends, or anything. */
const countText = (min: number, max: number, dirty: boolean) => {
  const inside = fc.integer({ min, max }).map(String)
  return dirty ? fc.oneof(inside, fc.constantFrom(min - 1, min, max, max + 1).map(String), anyIntegerText) : inside
}

const UNITS = ['m', 'h', 'd', 'w', 'M', 'y'] as const
/** Spans as text: short ones of every unit, large counts; in a dirty request also malformed spans. */
const spanText = (dirty: boolean) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.integer({ min: 1, max: 48 }), fc.constantFrom(...UNITS)).map(([n, u]) => `${n}${u}`)
    },
    fc.constantFrom('1h', '4h', '8h', '12h', '1d', '3d', '1w', '2w', '1M', '3M', '90m', '7m', '30d', '365d', '24M'),
    fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom(...UNITS)).map(([n, u]) => `${n}${u}`),
    dirty
      ? fc.constantFrom('', '0d', '-1d', '1.5h', 'd', '1', '999999y', '1000000y', '1D', '1s', '01h', '1 h')
      : fc.constant('1d')
  )

const pad = (n: number, w: number) => String(n).padStart(w, '0')
/** The UTC day of `ms` as YYYY-MM-DD, `ms` held within years 0000 to 9999 (the form dates take). */
const isoDay = (ms: number) => new Date(Math.min(Math.max(ms, FIRST_DAY), LAST_DAY)).toISOString().slice(0, 10)
const FIRST_DAY = new Date(0).setUTCFullYear(0, 0, 1)
const LAST_DAY = Date.UTC(9999, 11, 31)
/** Dates as text: days near the anchor, around 1970, years 0000 to 9999; dirty: impossible and malformed. */
const dateText = (anchor: number, dirty: boolean) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.integer({ min: -60, max: 60 }).map((d) => isoDay(Math.min(anchor, MAX_EPOCH_MS) + d * DAY))
    },
    fc.integer({ min: -60, max: 60 }).map((d) => isoDay(d * DAY)),
    fc.constantFrom('0000-01-01', '0099-12-31', '0100-01-01', '1969-12-31', '1970-01-01', '2106-02-07', '9999-12-31'),
    dirty
      ? fc.oneof(
          fc
            .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
            .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
          fc.constantFrom('', '2024-2-1', '2024-02-30', '20240101', '2024-01-01T00:00', '-001-01-01')
        )
      : fc.integer({ min: 0, max: 9999 }).map((y) => `${pad(y, 4)}-01-01`)
  )

/** Known symbols in every spelling; in a dirty request also assets without a market and unknown ones. */
const SYMBOLS = ['BTC', 'btc', 'BTCUSDT', 'BTC-USDT-SWAP', 'BTC/USDT:USDT', 'ETH']
/** A symbol; clean: a known one the parameter's pattern accepts (assets are plain names, e.g. BTC). */
const symbolText = (s: Json, dirty: boolean) => {
  if (dirty) return fc.constantFrom(...SYMBOLS, 'SOL', 'USDC', 'NOPE9', '', '-BTC')
  const pattern = typeof s['pattern'] === 'string' ? new RegExp(s['pattern']) : null
  return fc.constantFrom(...SYMBOLS.filter((v) => pattern === null || pattern.test(v)))
}

/** One of `values`; dirty: also a value outside them. */
const oneOfValues = (values: readonly string[], dirty: boolean) =>
  dirty ? fc.constantFrom(...values, 'nope') : fc.constantFrom(...values)

/** A comma list of `values`; dirty: also empty items and values outside them. */
const csvOf = (values: readonly string[], dirty: boolean) => {
  const list = fc.subarray([...values], { minLength: 1 }).map((v) => v.join(','))
  return dirty ? fc.oneof(list, fc.constantFrom('', ',', `${values[0]},nope`)) : list
}

/** A date parameter: `format: date` (or, in older schemas, a YYYY-MM-DD pattern). */
const isDate = (s: Json) =>
  s['format'] === 'date' || (typeof s['pattern'] === 'string' && s['pattern'].startsWith('^\\d{4}'))

/**
 * The arbitrary of one query parameter, by its schema (so a new parameter is fuzzed without edits here).
 * A clean request draws values the validator accepts, so they reach the handler's range and bucket
 * arithmetic; a dirty one also draws malformed, out-of-range and random text.
 */
function valueOf(name: string, s: Json, anchor: number, dirty: boolean): fc.Arbitrary<string> {
  const items = s['items'] as Json | undefined
  let typed: fc.Arbitrary<string>
  if (s['type'] === 'integer') {
    const max = s['maximum'] as number
    typed = max >= MAX_EPOCH_MS ? epochText(anchor, dirty) : countText(s['minimum'] as number, max, dirty)
  } else if (Array.isArray(s['enum'])) typed = oneOfValues(s['enum'] as string[], dirty)
  else if (s['type'] === 'array')
    typed = csvOf(Array.isArray(items?.['enum']) ? (items['enum'] as string[]) : SYMBOLS, dirty)
  else if (isDate(s)) typed = dateText(anchor, dirty)
  else if (['symbol', 'asset'].includes(name)) typed = symbolText(s, dirty)
  else typed = spanText(dirty) // lookback, interval, target_timeframe: the span notation
  return dirty ? fc.oneof({ weight: 4, arbitrary: typed }, fc.string({ maxLength: 16 })) : typed
}

/** The pairs of parameters that bound one range: (start, end), as epoch ms or as dates. */
const RANGE_PAIRS = [
  ['start_time', 'end_time'],
  ['start', 'end']
] as const

/**
 * A clean request's range made plausible: its end mostly after its start (by whole buckets or anything up
 * to two years, sometimes before it), and lookback or start_time rather than both (a 400 the dirty requests
 * keep drawing).
 */
function plausible(q: Record<string, string>, p: Plausible) {
  const out = { ...q }
  for (const [start, end] of RANGE_PAIRS) {
    const from = out[start]
    if (from === undefined || out[end] === undefined) continue
    out[end] = /^\d{4}-/.test(from)
      ? isoDay(Math.min(Date.parse(from) + p.days * DAY, MAX_EPOCH_MS))
      : String(Math.min(Number(from) + p.widthMs, MAX_EPOCH_MS))
  }
  if (out['lookback'] !== undefined && out['start_time'] !== undefined) {
    delete out[p.keepLookback ? 'start_time' : 'lookback']
  }
  // a cursor within the given range mostly (a page of the walk), sometimes just outside it
  const [from, to] = [Number(out['start_time']), Number(out['end_time'])]
  if (out['cursor'] !== undefined && Number.isSafeInteger(from) && Number.isSafeInteger(to)) {
    out['cursor'] = String(Math.max(0, Math.round(from + p.cursorAt * (to - from))))
  }
  return out
}

interface Plausible {
  readonly widthMs: number
  readonly days: number
  readonly keepLookback: boolean
  /** where a cursor falls in the range: 0 its start, 1 its end */
  readonly cursorAt: number
}

/** Widths of a range, ms: whole buckets mostly, a few ms, anything to two years; now and then negative. */
const widthMs = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(MIN, 5 * MIN, 15 * MIN, HOUR, 4 * HOUR, DAY, 7 * DAY))
      .map(([n, w]) => n * w)
  },
  fc.integer({ min: -2, max: 2 }),
  fc.integer({ min: -DAY, max: 731 * DAY })
)

/**
 * A query for `route`: its required parameters always, each optional one half the time; three in four
 * clean (made plausible), one in four dirty.
 */
export function queryOf(route: Route): fc.Arbitrary<Record<string, string>> {
  const schema = route.query as TObject
  const props = Object.entries(schema.properties as Record<string, Json>)
  const requiredKeys = (schema.required as string[] | undefined) ?? []
  return fc.tuple(anchorMs, fc.constantFrom(false, false, false, true)).chain(([anchor, dirty]) => {
    const model = Object.fromEntries(props.map(([name, s]) => [name, valueOf(name, s, anchor, dirty)]))
    const query = fc.record(model, { requiredKeys }) as fc.Arbitrary<Record<string, string>>
    if (dirty) return query
    const fixes = fc.record({
      widthMs,
      days: fc.integer({ min: -2, max: 60 }),
      keepLookback: fc.boolean(),
      cursorAt: fc.oneof(
        { weight: 4, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) },
        fc.constantFrom(-0.01, 1.01)
      )
    })
    return fc.tuple(query, fixes).map(([q, p]) => plausible(q, p))
  })
}

/** A query of the route's required parameters only, with ordinary values: an answer with data (200). */
export function plainQuery(route: Route): Record<string, string> {
  const schema = route.query as TObject
  const props = schema.properties as Record<string, Json>
  const out: Record<string, string> = {}
  for (const name of (schema.required as string[] | undefined) ?? []) {
    const s = props[name]!
    const items = s['items'] as Json | undefined
    if (Array.isArray(s['enum'])) out[name] = (s['enum'] as string[])[0]!
    else if (Array.isArray(items?.['enum'])) out[name] = (items['enum'] as string[])[0]!
    else if (isDate(s)) out[name] = isoDay(TODAY - DAY)
    else if (s['type'] === 'array' || ['symbol', 'asset'].includes(name)) out[name] = 'BTC'
    else out[name] = '1d'
  }
  return out
}
