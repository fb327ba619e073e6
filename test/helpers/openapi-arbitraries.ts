/**
 * fast-check arbitraries drawn from the JSON Schemas of an OpenAPI document: values a schema admits
 * (`validValue`) and values it refuses (`invalidValue`), plus query-string text as OpenAPI serializes it
 * (`style: form, explode: false` lists are comma-joined). Only the keywords the Tidewatch document uses are
 * handled (type, enum, const, minimum/maximum, minLength/maxLength, pattern, format date, minItems/maxItems,
 * examples, oneOf of exclusive branches); a schema with another keyword fails loudly instead of generating wrong values.
 */
import fc from 'fast-check'

export type Schema = Readonly<Record<string, unknown>>

const KNOWN = new Set([
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'items',
  'minItems',
  'maxItems',
  'examples',
  'default',
  'description',
  'x-format',
  'x-rule',
  'oneOf',
  'properties',
  'required',
  'additionalProperties'
])

function checkKnown(s: Schema): void {
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`schema keyword ${k} is not generated`)
}

/** Code points, as JSON Schema counts string lengths. */
export const codePoints = (s: string): number => [...s].length

const pad = (n: number, w: number) => String(n).padStart(w, '0')

/** A calendar date YYYY-MM-DD in years 0000-9999 (every day exists). */
const fullDate = fc
  .date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`)

/**
 * URLs the server may contact (webhook receivers: a string schema with `format: uri` or a pattern starting
 * `^https://`) are never drawn freely, so a run makes no DNS lookup or connection off the machine; a test
 * points them at a receiver of its own on loopback (`useReceiverUrls`).
 */
let receiverUrls: fc.Arbitrary<string> = fc.constant('https://127.0.0.1:9/hook')

export function useReceiverUrls(urls: fc.Arbitrary<string>): void {
  receiverUrls = urls
}

const isUrl = (s: Schema): boolean => s['format'] === 'uri' || /^\^https?:\/\//.test(String(s['pattern'] ?? ''))

/** Prefers the schema's examples three times in four: they name data the server holds. */
function withExamples<T>(s: Schema, base: fc.Arbitrary<T>): fc.Arbitrary<T> {
  const examples = s['examples'] as T[] | undefined
  if (!examples?.length) return base
  return fc.oneof({ arbitrary: fc.constantFrom(...examples), weight: 3 }, { arbitrary: base, weight: 1 })
}

function validString(s: Schema): fc.Arbitrary<string> {
  const min = (s['minLength'] as number | undefined) ?? 0
  const max = (s['maxLength'] as number | undefined) ?? 80
  if (isUrl(s)) return receiverUrls
  if (s['format'] === 'date') return withExamples(s, fullDate)
  if (s['format'] !== undefined) throw new Error(`format ${String(s['format'])} is not generated`)
  if (typeof s['pattern'] === 'string') {
    const re = new RegExp(s['pattern'], 'u')
    return withExamples(
      s,
      fc.stringMatching(re).filter((v) => codePoints(v) >= min && codePoints(v) <= max)
    )
  }
  // any code point, astral ones too: lengths are counted in code points, not UTF-16 units
  return withExamples(
    s,
    fc.oneof(
      fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 80) }),
      fc.constant('😀'.repeat(Math.min(max, 80))).filter((v) => codePoints(v) >= min)
    )
  )
}

/** A value the schema admits. Lists are arrays; the query serializer joins them. */
export function validValue(s: Schema): fc.Arbitrary<unknown> {
  checkKnown(s)
  if (s['const'] !== undefined) return fc.constant(s['const'])
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]))
  // the document's oneOf branches exclude each other (`["*"]` or names without it): any branch's value
  if (Array.isArray(s['oneOf'])) return fc.oneof(...(s['oneOf'] as Schema[]).map(validValue))
  switch (s['type']) {
    case 'integer': {
      const min = (s['minimum'] as number | undefined) ?? -1e9
      const max = (s['maximum'] as number | undefined) ?? 1e9
      const any = fc.integer({ min, max })
      // a time the description calls epoch ms: half the draws within 60 days of now, where data and plans are
      if (!/epoch ms/.test(String(s['description'] ?? ''))) return withExamples(s, any)
      const now = Date.now()
      const near = fc.integer({ min: Math.max(min, now - 60 * 86_400_000), max: Math.min(max, now + 86_400_000) })
      return fc.oneof(near, any)
    }
    case 'number':
      return fc.double({
        min: (s['minimum'] as number | undefined) ?? -1e9,
        max: (s['maximum'] as number | undefined) ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true
      })
    case 'boolean':
      return fc.boolean()
    case 'string':
      return validString(s)
    case 'array': {
      const min = (s['minItems'] as number | undefined) ?? 0
      const max = Math.min((s['maxItems'] as number | undefined) ?? 5, min + 4)
      const items = s['items'] as Schema
      const any = fc.array(validValue(items), { minLength: min, maxLength: max })
      const examples = items['examples'] as unknown[] | undefined
      if (!examples?.length) return any
      // lists of examples only three times in four: one unknown item refuses the whole list
      const known = fc.array(fc.constantFrom(...examples), { minLength: min, maxLength: max })
      return fc.oneof({ arbitrary: known, weight: 3 }, { arbitrary: any, weight: 1 })
    }
    case 'object':
      return validObject(s)
    default:
      throw new Error(`type ${String(s['type'])} is not generated`)
  }
}

/**
 * An object with every required property and some optional ones; an undeclared property too, now and then,
 * unless the schema says `additionalProperties: false`.
 */
export function validObject(
  s: Schema,
  /** values of chosen properties instead of their schema's (e.g. ids of resources that exist) */
  field?: (name: string, schema: Schema) => fc.Arbitrary<unknown> | undefined
): fc.Arbitrary<Record<string, unknown>> {
  const props = (s['properties'] ?? {}) as Record<string, Schema>
  const required = new Set((s['required'] as string[] | undefined) ?? [])
  const record: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [k, v] of Object.entries(props)) record[k] = field?.(k, v) ?? validValue(v)
  const declared = fc.record(record, { requiredKeys: [...required] })
  if (s['additionalProperties'] === false) return declared
  return fc
    .tuple(declared, fc.option(fc.constant({ zz_extra: 1 }), { freq: 4, nil: {} }))
    .map(([a, b]) => ({ ...a, ...b }))
}

/** Text that is not a calendar date: impossible days and months, other shapes. */
const NOT_DATES = ['2026-02-30', '0000-00-00', '2025-02-29', '2026-13-01', '2026-04-31', '2026-1-01', '20260101', '']

/**
 * Query text the schema refuses, or null when there is none to make (a plain unbounded string). Covers
 * each rule: type, range, enum, pattern, format, both lengths (in code points), list shape.
 */
export function invalidText(s: Schema): fc.Arbitrary<string> | null {
  checkKnown(s)
  const choices: fc.Arbitrary<string>[] = []
  if (Array.isArray(s['enum'])) {
    const allowed = new Set(s['enum'] as string[])
    choices.push(fc.string({ minLength: 0, maxLength: 12 }).filter((v) => !allowed.has(v)))
    return fc.oneof(...choices)
  }
  switch (s['type']) {
    case 'integer': {
      const min = s['minimum'] as number | undefined
      const max = s['maximum'] as number | undefined
      if (min !== undefined) choices.push(fc.integer({ min: min - 1000, max: min - 1 }).map(String))
      if (max !== undefined) choices.push(fc.integer({ min: max + 1, max: max + 1000 }).map(String))
      choices.push(fc.constantFrom('', '1.5', 'abc', '1e3', ' 1', '0x10'))
      break
    }
    case 'boolean':
      choices.push(fc.constantFrom('', 'yes', 'TRUE', '1'))
      break
    case 'string': {
      const min = (s['minLength'] as number | undefined) ?? 0
      const max = s['maxLength'] as number | undefined
      if (min > 0) choices.push(fc.constant(''))
      if (max !== undefined) {
        // one code point too many, in astral characters: 2 UTF-16 units each
        choices.push(fc.constant('😀'.repeat(max + 1)))
      }
      if (typeof s['pattern'] === 'string') {
        const re = new RegExp(s['pattern'], 'u')
        choices.push(
          fc
            .string({ minLength: 1, maxLength: Math.min(max ?? 20, 20) })
            .filter((v) => !re.test(v) && codePoints(v) >= min)
        )
      }
      if (s['format'] === 'date') choices.push(fc.constantFrom(...NOT_DATES))
      break
    }
    case 'array': {
      const item = s['items'] as Schema
      const good = validValue(item).map(String)
      choices.push(
        fc.constant(''),
        good.map((v) => `${v},`),
        good.map((v) => `${v},,${v}`)
      )
      const bad = invalidText(item)
      // a bad item holding a comma could split into good ones
      const lone = bad?.filter((b) => b !== '' && !b.includes(','))
      if (lone) choices.push(fc.tuple(good, lone).map(([a, b]) => `${a},${b}`))
      const max = s['maxItems'] as number | undefined
      if (max !== undefined) choices.push(good.map((v) => Array.from({ length: max + 1 }, () => v).join(',')))
      break
    }
    default:
      return null
  }
  return choices.length ? fc.oneof(...choices) : null
}

/** Query text of a value: comma lists joined, everything else as text. */
export function queryText(v: unknown): string {
  return Array.isArray(v) ? v.map(String).join(',') : String(v)
}
