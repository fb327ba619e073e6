/**
 * @module
 * Building blocks of the API's parameter and body schemas (TypeBox, i.e. JSON Schema). The same objects
 * validate requests (server/validate.ts) and describe them in `GET /v1/openapi.json`. Query values arrive
 * as text; `x-format: 'csv'` marks a comma-separated list.
 */
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox'

export interface ParamOptions<T> {
  readonly description: string
  readonly default?: T
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

/** A comma-separated list of values from `values` (e.g. `chains=ethereum,bsc`). */
export function ListParam<const V extends readonly string[]>(
  values: V,
  o: ParamOptions<V[number][]>
): TUnsafe<V[number][]> {
  return Type.Unsafe<V[number][]>({
    type: 'array',
    items: { type: 'string', enum: [...values] },
    'x-format': 'csv',
    ...o
  })
}

export function StringParam(o: ParamOptions<string> & { readonly pattern?: string; readonly maxLength?: number }) {
  return Type.String({ maxLength: 64, ...o })
}

export function Optional<T extends TSchema>(s: T) {
  return Type.Optional(s)
}

export const NoParams = Type.Object({})
