/**
 * @module
 * Parameter and response schemas of `GET /v1/onchain/metrics`.
 */
import { Type } from '@sinclair/typebox'
import { ListParam, StringParam } from './params.js'

export const ONCHAIN_METRICS = ['exchange_netflow_usd', 'exchange_reserve_usd', 'mvrv', 'active_addresses'] as const

export const OnchainQuery = Type.Object(
  {
    asset: StringParam({ description: 'asset, e.g. BTC (case-insensitive)', pattern: '^[A-Za-z0-9]{1,20}$' }),
    metrics: Type.Optional(
      ListParam(ONCHAIN_METRICS, { description: 'comma list; default all', default: [...ONCHAIN_METRICS] })
    ),
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'series window, hours' }))
  },
  { required: ['asset'] }
)

const point = Type.Object({ ts: Type.Integer({ description: 'epoch seconds' }), value: Type.Number() })

export const OnchainResponse = Type.Object({
  asset: Type.String(),
  hours: Type.Integer(),
  metrics: Type.Record(
    Type.String(),
    Type.Object({ latest: Type.Union([point, Type.Null()]), points: Type.Array(point) })
  )
})
