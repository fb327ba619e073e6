/**
 * @module
 * The check of one environment variable's converted value against its schema (env.ts), for the schema
 * kinds the `Env*` helpers build: Integer and Number (`minimum`, `maximum`, `exclusiveMinimum`,
 * `exclusiveMaximum`, `multipleOf`), String (`minLength`, `maxLength`, `pattern`, `format` through
 * TypeBox's FormatRegistry), Literal and Union. It answers as TypeBox's `Value.Check` does for these kinds
 * (a number must be finite), without loading TypeBox's value package (~50 modules) at every start. A schema
 * of another kind throws: a variable's helper must be added here first.
 */
import { FormatRegistry, Kind, type TSchema } from '@sinclair/typebox'

interface NumberBounds {
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly multipleOf?: number
}

interface StringBounds {
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly format?: string
}

function inBounds(value: number, s: NumberBounds): boolean {
  if (s.minimum !== undefined && !(value >= s.minimum)) return false
  if (s.maximum !== undefined && !(value <= s.maximum)) return false
  if (s.exclusiveMinimum !== undefined && !(value > s.exclusiveMinimum)) return false
  if (s.exclusiveMaximum !== undefined && !(value < s.exclusiveMaximum)) return false
  return s.multipleOf === undefined || value % s.multipleOf === 0
}

function stringOk(value: string, s: StringBounds): boolean {
  if (s.minLength !== undefined && !(value.length >= s.minLength)) return false
  if (s.maxLength !== undefined && !(value.length <= s.maxLength)) return false
  if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) return false
  if (s.format === undefined) return true
  const check = FormatRegistry.Get(s.format)
  return check !== undefined && check(value)
}

/** Whether `value` is one `schema` accepts (see the module comment for the kinds it knows). */
export function envValueOk(schema: TSchema, value: unknown): boolean {
  const kind = schema[Kind] as string
  switch (kind) {
    case 'Integer':
      return Number.isInteger(value) && inBounds(value as number, schema as NumberBounds)
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value) && inBounds(value, schema as NumberBounds)
    case 'String':
      return typeof value === 'string' && stringOk(value, schema as StringBounds)
    case 'Literal':
      return value === (schema as { const?: unknown }).const
    case 'Union':
      return ((schema as { anyOf?: TSchema[] }).anyOf ?? []).some((s) => envValueOk(s, value))
    default:
      throw new Error(`an environment variable's schema of kind ${kind} has no check (engine/config/env-check.ts)`)
  }
}
