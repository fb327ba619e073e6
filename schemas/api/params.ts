/**
 * @module
 * Building blocks of the API's parameter and body schemas (TypeBox, i.e. JSON Schema 2020-12). The same
 * objects validate requests (server/validate.ts) and describe them in `GET /v1/openapi.json`, so every rule
 * the validator applies is a keyword the document shows: `minLength`/`maxLength` (counted in Unicode code
 * points, as JSON Schema counts them), `pattern`, `format: date`, `minItems`/`maxItems`, `enum`, ranges.
 * Query values arrive as text; `x-format: 'csv'` marks a comma-separated list. `x-rule` is the phrase the
 * validator's 400 message uses for a `pattern` (what the value must be, for a person).
 */
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox'
import { SPAN_PATTERN } from '../../engine/history/span-grammar.js'

export interface ParamOptions<T> {
  readonly description: string
  readonly default?: T
  /** sample values (JSON Schema `examples`): shown in the document and in the 400 message of a pattern */
  readonly examples?: readonly T[]
}

export function IntParam(minimum: number, maximum: number, o: ParamOptions<number>) {
  return Type.Integer({ minimum, maximum, ...o })
}

export function EnumParam<const V extends readonly string[]>(
  values: V,
  o: ParamOptions<V[number]>
): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...o })
}

/** How comma lists are written: the rule every `x-format: csv` parameter states in its description. */
export const LIST_RULE =
  'comma-separated, no spaces; at least one item, no empty items (a trailing comma or an empty value is refused); repeated items count once'

/** A comma list: `minItems: 1`, items as `items` (the validator applies their enum, pattern and length). */
export function CsvParam<T>(items: Record<string, unknown>, o: ParamOptions<T[]> & { readonly maxItems?: number }) {
  const { description, ...rest } = o
  return Type.Unsafe<T[]>({
    type: 'array',
    items,
    minItems: 1,
    'x-format': 'csv',
    description: `${description} (${LIST_RULE}${o.maxItems === undefined ? '' : `; at most ${o.maxItems} items`})`,
    ...rest
  })
}

/** A comma-separated list of values from `values` (e.g. `chain=ethereum,bsc`). */
export function ListParam<const V extends readonly string[]>(
  values: V,
  o: ParamOptions<V[number][]> & { readonly maxItems?: number }
): TUnsafe<V[number][]> {
  return CsvParam<V[number]>({ type: 'string', enum: [...values] }, o)
}

/**
 * Where a schema keeps the 400 message of a value it refuses, when the validator it derives from says it
 * better than the schema's phrase (a symbol: the resolver's message naming the forms). Symbol-keyed, so it
 * never reaches the document; the validator (server/validate.ts) calls it with the parameter's name.
 */
export const REFUSAL = Symbol.for('tidewatch.schema.refusal')

/** The message for `value` of parameter `name`, or undefined for the schema's own phrase. */
export type Refusal = (name: string, value: string) => string | undefined

export interface StringOptions extends ParamOptions<string> {
  readonly pattern?: string
  /** the phrase for the 400 message of `pattern` ("an absolute path"); without it the pattern is quoted */
  readonly rule?: string
  /** @default 64 (code points) */
  readonly maxLength?: number
  /** the message of a refused value, from the validator the pattern derives from */
  readonly refusal?: Refusal
}

/** A non-empty string: `minLength: 1` (an empty value is refused, with that message), `maxLength` 64. */
export function StringParam(o: StringOptions) {
  const { rule, refusal, ...rest } = o
  const schema = Type.String({
    minLength: 1,
    maxLength: 64,
    ...rest,
    ...(rule === undefined ? {} : { 'x-rule': rule })
  })
  return refusal === undefined ? schema : Object.assign(schema, { [REFUSAL]: refusal })
}

/** The grammar of durations and bucket widths (engine/history/span.ts): count 1 to 100000, then a unit. */
export const DURATION_PATTERN = SPAN_PATTERN
export const DURATION_RULE =
  'a count and a unit, e.g. 90m, 12h, 30d, 2w, 6M or 1y (count 1 to 100000 without leading zeros; m minutes, h hours, d days, w weeks, M calendar months, y calendar years)'

const DURATION_RE = new RegExp(DURATION_PATTERN, 'u')

/** Which spans a parameter takes: its pattern (engine/history/span-grammar.ts) and the parser behind it. */
export interface SpanGrammar {
  readonly pattern: string
  /** the endpoint's parser: throws its 400 for a span it does not take */
  readonly parse: (text: string, param: string) => unknown
}

/**
 * A duration or bucket width in the `30d` notation; `description` adds what it means and its limits.
 * A value off the notation answers `rule`; a span the endpoint does not take answers its parser's message.
 * @param rule the 400 message's phrase for a value off the grammar. @default DURATION_RULE
 * @param grammar the spans taken. @default any span
 */
export function DurationParam(description: string, def?: string, rule = DURATION_RULE, grammar?: SpanGrammar) {
  return StringParam({
    description: `${description}. Written as ${DURATION_RULE}`,
    pattern: grammar?.pattern ?? DURATION_PATTERN,
    rule,
    ...(grammar === undefined ? {} : { refusal: (name: string, value: string) => spanRefusal(grammar, name, value) }),
    maxLength: 7,
    examples: def === undefined ? ['1h', '1d', '7d'] : [def],
    ...(def === undefined ? {} : { default: def })
  })
}

/** The parser's message for a span in the notation that the endpoint refuses; undefined off the notation. */
function spanRefusal(grammar: SpanGrammar, name: string, value: string): string | undefined {
  if (!DURATION_RE.test(value)) return undefined
  try {
    grammar.parse(value, name)
    return undefined
  } catch (e) {
    return (e as Error).message
  }
}

/** A calendar day `YYYY-MM-DD` (RFC 3339 full-date, `format: date`): 2026-02-30 or 0000-00-00 are refused. */
export function DateParam(description: string) {
  return Type.String({
    format: 'date',
    description: `${description}: a calendar date YYYY-MM-DD (RFC 3339 full-date, UTC); days that do not exist (2026-02-30, 0000-00-00) are refused`,
    examples: ['2026-01-31']
  })
}

export function Optional<T extends TSchema>(s: T) {
  return Type.Optional(s)
}

export const NoParams = Type.Object({})
