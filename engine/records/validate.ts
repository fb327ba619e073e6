/**
 * @module
 * Validation of untrusted normalized records (admin ingest NDJSON). Returns either the record or the
 * first problem found, naming the field, so a caller can answer "line 7, field price: must be >= 0".
 * Unknown fields are rejected: a typo must not be silently dropped. Everything accepted is stored as sent:
 * times within the 13-digit milliseconds the store reads (fields.ts MIN_TS_MS), integers within their
 * column (fields.ts `min`/`max`), strings that are valid Unicode.
 */
import { KIND_SPECS, MAX_STRING_LENGTH, MAX_TS_MS, MIN_TS_MS, type FieldSpec } from './fields.js'
import type { RecordKind, RecordOf } from './types.js'

export interface FieldProblem {
  readonly field: string
  readonly message: string
}

export type Validated<K extends RecordKind> =
  { readonly ok: true; readonly record: RecordOf<K> } | { readonly ok: false; readonly problem: FieldProblem }

const TS_RANGE = `integer epoch milliseconds (13 digits) from ${MIN_TS_MS} (2001-09-09) to ${MAX_TS_MS} (2100-01-01)`

/**
 * What an out-of-range integer time most likely is: seconds, microseconds or nanoseconds that fall in range
 * once scaled, so the message can say which way to convert.
 */
function timeUnitHint(v: number): string {
  const inRange = (ms: number): boolean => ms >= MIN_TS_MS && ms <= MAX_TS_MS
  if (inRange(v * 1000)) return `; ${v} looks like epoch seconds: multiply by 1000`
  if (inRange(v / 1000)) return `; ${v} looks like epoch microseconds: divide by 1000`
  if (inRange(v / 1_000_000)) return `; ${v} looks like epoch nanoseconds: divide by 1000000`
  return ''
}

function checkTs(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isInteger(v)) return `must be ${TS_RANGE}`
  return v >= MIN_TS_MS && v <= MAX_TS_MS ? null : `must be ${TS_RANGE}${timeUnitHint(v)}`
}

/** A lone UTF-16 surrogate (valid JSON: `"\ud800"`) has no UTF-8 form: the store would hold U+FFFD instead. */
const LONE_SURROGATE = /\p{Surrogate}/u

function checkString(v: unknown): string | null {
  if (typeof v !== 'string' || v.length === 0) return 'must be a non-empty string'
  if (v.length > MAX_STRING_LENGTH) return `must be at most ${MAX_STRING_LENGTH} characters`
  return LONE_SURROGATE.test(v) ? 'must be valid Unicode (no lone surrogate \\uD800-\\uDFFF)' : null
}

function checkUint(f: FieldSpec, v: unknown): string | null {
  const min = f.min ?? 0
  const max = f.max ?? Number.MAX_SAFE_INTEGER
  return Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max
    ? null
    : `must be an integer from ${min} to ${max}`
}

function checkField(f: FieldSpec, v: unknown): string | null {
  if (v === undefined || v === null) return f.optional ? null : 'is required'
  switch (f.type) {
    case 'ts':
      return checkTs(v)
    case 'string':
      return checkString(v)
    case 'float':
      if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a finite number'
      return f.nonNegative && v < 0 ? 'must be >= 0' : null
    case 'uint':
      return checkUint(f, v)
    case 'enum':
      return typeof v === 'string' && f.values!.includes(v) ? null : `must be one of ${f.values!.join(', ')}`
  }
}

/** Validates one parsed JSON value as a record of `kind`. The `kind` property itself is optional in input. */
export function validateRecord<K extends RecordKind>(kind: K, input: unknown): Validated<K> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problem: { field: '(record)', message: 'must be a JSON object' } }
  }
  const obj = input as Record<string, unknown>
  const spec = KIND_SPECS[kind]
  for (const f of spec.fields) {
    const problem = checkField(f, obj[f.name])
    if (problem) return { ok: false, problem: { field: f.name, message: problem } }
  }
  for (const key of Object.keys(obj)) {
    if (key === 'kind') {
      if (obj[key] !== kind) return { ok: false, problem: { field: 'kind', message: `must be "${kind}"` } }
    } else if (!spec.fields.some((f) => f.name === key)) {
      return { ok: false, problem: { field: key, message: `is not a field of ${kind}` } }
    }
  }
  const record: Record<string, unknown> = { kind }
  for (const f of spec.fields) record[f.name] = obj[f.name] ?? null
  return { ok: true, record: record as unknown as RecordOf<K> }
}
