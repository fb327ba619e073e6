/**
 * @module
 * Parameter and response schemas of `GET /v1/confirm` (both published shapes in one object).
 */
import { Type } from '@sinclair/typebox'
import { symbolParam } from './history.js'
import { EnumParam, StringParam } from './params.js'
import { AS_OF_PARAMS, PointInTimeMember } from './as-of.js'

export const ConfirmQuery = Type.Object(
  {
    symbol: symbolParam('the base asset to confirm; a pair or market names its base', undefined, false),
    direction: EnumParam(['long', 'short'] as const, { description: 'the idea to confirm' }),
    source: Type.Optional(
      StringParam({
        description:
          'free-form caller label, logged; 1 to 64 characters (Unicode code points), an empty value is refused',
        maxLength: 64
      })
    ),
    ...AS_OF_PARAMS
  },
  { required: ['symbol', 'direction'] }
)

const score = (description: string) => Type.Number({ minimum: -1, maximum: 1, description })
const nullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description })

export const ConfirmResponse = Type.Object({
  ts: Type.Integer({ description: 'epoch seconds' }),
  symbol: Type.String(),
  direction: Type.String({ enum: ['long', 'short'] }),
  composite: score('-1 strong contra .. +1 strong confirm'),
  confidence: Type.String({ enum: ['HIGH', 'MEDIUM'] }),
  action: Type.String({ enum: ['CONFIRM', 'REDUCE', 'SKIP'] }),
  size_mult: Type.Number({ minimum: 0, maximum: 1.5 }),
  deriv_score: score('derivatives sub-score'),
  onchain_score: score('on-chain sub-score'),
  whale_score: score('whale sub-score'),
  reasons: Type.Array(Type.String()),
  confirmation: Type.String({ enum: ['HIGH', 'MEDIUM', 'LOW', 'NONE'] }),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  smart_money: Type.Object({
    net_flow_usd: nullableNumber('whale net flow of the asset, 24 h, USD'),
    long_short_ratio: nullableNumber('accounts long/short of the primary market'),
    whales_long: Type.Union([Type.Integer(), Type.Null()]),
    whales_short: Type.Union([Type.Integer(), Type.Null()])
  }),
  derivatives: Type.Object({
    funding_rate: nullableNumber('decimal fraction per interval'),
    oi_change_24h: nullableNumber('fraction')
  }),
  as_of: Type.String({ format: 'date-time' }),
  point_in_time: Type.Optional(PointInTimeMember)
})
