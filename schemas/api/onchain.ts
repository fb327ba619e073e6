/**
 * @module
 * Parameter and response schemas of `GET /v1/onchain/metrics`.
 */
import { Type } from '@sinclair/typebox'
import { symbolParam } from './history.js'
import { ListParam } from './params.js'
import { AS_OF_PARAMS, PointInTimeMember } from './as-of.js'

export const ONCHAIN_METRICS = ['exchange_netflow_usd', 'exchange_reserve_usd', 'mvrv', 'active_addresses'] as const

export const OnchainQuery = Type.Object(
  {
    asset: symbolParam(
      'the asset; a pair or market names its base. An asset without stored metrics answers 400 unknown_symbol',
      undefined,
      false
    ),
    metrics: Type.Optional(
      ListParam(ONCHAIN_METRICS, { description: 'metrics; default all', default: [...ONCHAIN_METRICS] })
    ),
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'series window, hours' })),
    ...AS_OF_PARAMS
  },
  { required: ['asset'] }
)

const point = Type.Object({ ts: Type.Integer({ description: 'epoch seconds' }), value: Type.Number() })

export const OnchainResponse = Type.Object({
  asset: Type.String(),
  hours: Type.Integer(),
  metrics: Type.Record(
    Type.String(),
    Type.Object({
      latest: Type.Union([point, Type.Null()]),
      points: Type.Array(point),
      // chain sources (docs/whales.md): where the metric comes from
      source: Type.String({
        description:
          'chain:<chains> when measured by the chain sources from the operator nodes, else stored (admin API or demo market); MVRV, reserves and active addresses are never computed from chain data'
      })
    })
  ),
  point_in_time: Type.Optional(PointInTimeMember)
})
