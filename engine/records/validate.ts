/**
 * @module
 * Validation of untrusted normalized records (admin ingest NDJSON). Returns either the record or the
 * first problem found, naming the field, so a caller can answer "line 7, field price: must be a finite
 * number >= 0". Unknown fields are rejected: a typo must not be silently dropped.
 */
import { KIND_SPECS, type FieldSpec } from './fields.js'
import type { RecordKind, RecordOf } from './types.js'

export interface FieldProblem {
  readonly field: string
  readonly message: string
}

export type Validated<K extends RecordKind> =
  { readonly ok: true; readonly record: RecordOf<K> } | { readonly ok: false; readonly problem: FieldProblem }

/** Latest accepted timestamp: year 2100, epoch ms. Anything larger is almost surely microseconds. */
const MAX_TS_MS = 4_102_444_800_000
/** Longest accepted string value; symbols, hashes and addresses are far shorter. */
const MAX_STRING = 256

function checkField(f: FieldSpec, v: unknown): string | null {
  if (v === undefined || v === null) return f.optional ? null : 'is required'
  switch (f.type) {
    case 'ts':
      return Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TS_MS
        ? null
        : 'must be integer epoch milliseconds between 1970 and 2100'
    case 'string':
      if (typeof v !== 'string' || v.length === 0) return 'must be a non-empty string'
      return v.length > MAX_STRING ? `must be at most ${MAX_STRING} characters` : null
    case 'float':
      if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a finite number'
      return f.nonNegative && v < 0 ? 'must be >= 0' : null
    case 'uint':
      return Number.isSafeInteger(v) && (v as number) >= 0 ? null : 'must be a non-negative integer'
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
