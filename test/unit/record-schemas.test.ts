/**
 * docs/records.md, the JSON schemas of schemas/api/records.ts and the validation of admin ingest
 * (engine/records/validate.ts) say the same thing: every kind documented with exactly its fields, types and
 * optional fields; every example line accepted by both; and the schema refuses what validation refuses
 * (missing, unknown, negative, empty, too long, not Unicode, out of the column's range, a time that is not
 * 13-digit milliseconds, wrong value, wrong kind) and accepts null optionals.
 * test/integration/records-doc.test.ts posts the same examples to a real server.
 */
import { describe, expect, it } from 'vitest'
import { Value } from '@sinclair/typebox/value'
import { KIND_SPECS, RECORD_KINDS, type FieldSpec } from '../../engine/records/fields.js'
import { validateRecord } from '../../engine/records/validate.js'
import type { RecordKind } from '../../engine/records/types.js'
import { MAX_RECORD_STRING, MAX_RECORD_TS_MS, MIN_RECORD_TS_MS, RECORD_SCHEMAS } from '../../schemas/api/records.js'
import { readRecordsDoc } from '../helpers/records-doc.js'

const doc = readRecordsDoc()

/** the type column docs/records.md must show for a field */
function docType(f: FieldSpec): string {
  switch (f.type) {
    case 'ts':
      return 'timestamp'
    case 'string':
      return 'string'
    case 'float':
      return f.nonNegative ? 'number ≥ 0' : 'number'
    case 'uint':
      return f.min === undefined && f.max === undefined ? 'integer ≥ 0' : `integer ${f.min ?? 0} to ${f.max}`
    case 'enum':
      return f.values!.map((v) => `"${v}"`).join(' | ')
  }
}

function examplesOf(kind: RecordKind): Record<string, unknown>[] {
  return doc.sections.get(kind)!.examples.map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** [validation accepts, schema accepts] */
function verdicts(kind: RecordKind, record: unknown): [boolean, boolean] {
  return [validateRecord(kind, record).ok, Value.Check(RECORD_SCHEMAS[kind], record)]
}

/** records that break one rule each; validation and the schema must both refuse every one */
function brokenVariants(kind: RecordKind, good: Record<string, unknown>): [string, unknown][] {
  const out: [string, unknown][] = [
    ['not an object', [good]],
    ['unknown field', { ...good, extra: 1 }],
    ['wrong kind', { ...good, kind: kind === 'trade' ? 'funding' : 'trade' }]
  ]
  for (const f of KIND_SPECS[kind].fields) {
    const without = { ...good }
    delete without[f.name]
    if (!f.optional) out.push([`${f.name} missing`, without], [`${f.name} null`, { ...good, [f.name]: null }])
    const bad: unknown[] = []
    if (f.type === 'ts') {
      bad.push(MAX_RECORD_TS_MS + 1, MIN_RECORD_TS_MS - 1, 1_795_161_600, 0, 1_795_161_600_000.5, -1, '1795161600000')
    }
    if (f.type === 'string') bad.push('', 'x'.repeat(MAX_RECORD_STRING + 1), 42, 'a\ud800', '\udc00')
    if (f.type === 'float') bad.push('1', true, ...(f.nonNegative ? [-0.01] : []))
    if (f.type === 'uint') bad.push(-1, (f.min ?? 0) - 1, (f.max ?? Number.MAX_SAFE_INTEGER) + 1, 1.5, '3')
    if (f.type === 'enum') bad.push('nope', f.values![0]!.toUpperCase())
    for (const v of bad) out.push([`${f.name} = ${JSON.stringify(v)}`, { ...good, [f.name]: v }])
  }
  return out
}

describe('docs/records.md', () => {
  it('documents every record kind with exactly its fields, types and optional fields, in column order', () => {
    expect([...doc.sections.keys()].sort()).toEqual([...RECORD_KINDS].sort())
    for (const kind of RECORD_KINDS) {
      const expected = KIND_SPECS[kind].fields.map((f) => ({ name: f.name, type: docType(f), required: !f.optional }))
      expect(doc.sections.get(kind)!.fields, kind).toEqual(expected)
    }
  })

  it('gives examples of every kind that together use every field, each line naming its kind', () => {
    for (const kind of RECORD_KINDS) {
      const examples = examplesOf(kind)
      expect(examples.length, kind).toBeGreaterThan(0)
      for (const e of examples) expect(e['kind'], kind).toBe(kind)
      const used = new Set(examples.flatMap((e) => Object.keys(e)))
      for (const f of KIND_SPECS[kind].fields) expect(used.has(f.name), `${kind}.${f.name}`).toBe(true)
    }
    expect(doc.shellTrades.length).toBeGreaterThan(0)
  })
})

describe('record schemas and validation agree', () => {
  it.each(RECORD_KINDS)('%s: both accept every documented example, also without kind and with nulls', (kind) => {
    for (const e of examplesOf(kind)) {
      expect(verdicts(kind, e)).toEqual([true, true])
      const { kind: _omitted, ...bare } = e
      expect(verdicts(kind, bare)).toEqual([true, true])
      const nulls = { ...e }
      for (const f of KIND_SPECS[kind].fields) if (f.optional) nulls[f.name] = null
      expect(verdicts(kind, nulls)).toEqual([true, true])
    }
    if (kind === 'trade')
      for (const line of doc.shellTrades) expect(verdicts(kind, JSON.parse(line))).toEqual([true, true])
  })

  it.each(RECORD_KINDS)('%s: both refuse a record that breaks any one rule', (kind) => {
    for (const [what, record] of brokenVariants(kind, examplesOf(kind)[0]!)) {
      expect(verdicts(kind, record), what).toEqual([false, false])
    }
  })

  it('both accept the values at the limits of the store (docs/records.md) and refuse one past them', () => {
    const [funding] = examplesOf('funding')
    const [whale] = examplesOf('whale_transfer')
    const [metric] = examplesOf('onchain_metric')
    const both = (kind: RecordKind, record: unknown) => verdicts(kind, record)
    expect(both('funding', { ...funding, interval_hours: 1 })).toEqual([true, true])
    expect(both('funding', { ...funding, interval_hours: 255 })).toEqual([true, true])
    expect(both('funding', { ...funding, interval_hours: 0 })).toEqual([false, false])
    expect(both('funding', { ...funding, interval_hours: 256 })).toEqual([false, false])
    expect(both('funding', { ...funding, next_funding_ts: MIN_RECORD_TS_MS })).toEqual([true, true])
    expect(both('funding', { ...funding, next_funding_ts: 1_795_190_400 })).toEqual([false, false])
    expect(both('whale_transfer', { ...whale, log_index: 2 ** 32 - 1 })).toEqual([true, true])
    expect(both('whale_transfer', { ...whale, log_index: 2 ** 32 })).toEqual([false, false])
    expect(both('whale_transfer', { ...whale, block_number: Number.MAX_SAFE_INTEGER })).toEqual([true, true])
    expect(both('whale_transfer', { ...whale, token: 'USDC\u{1F40B}' })).toEqual([true, true])
    expect(both('onchain_metric', { ...metric, ts: MIN_RECORD_TS_MS })).toEqual([true, true])
    expect(both('onchain_metric', { ...metric, ts: MAX_RECORD_TS_MS })).toEqual([true, true])
    // seconds and other short integers are not milliseconds the store can read
    expect(both('onchain_metric', { ...metric, ts: 1_795_161_600 })).toEqual([false, false])
  })

  it('serialize to plain JSON Schema for the OpenAPI document', () => {
    const json = JSON.parse(JSON.stringify(RECORD_SCHEMAS.trade)) as Record<string, unknown>
    expect(json).toMatchObject({ type: 'object', additionalProperties: false })
    expect(json['required']).toEqual(KIND_SPECS.trade.fields.map((f) => f.name))
    expect(JSON.parse(JSON.stringify(RECORD_SCHEMAS.funding))['required']).not.toContain('mark_price')
  })
})
