/**
 * @module
 * Parameter and response schemas of the options endpoints (service spec "Options").
 */
import { Type } from '@sinclair/typebox'
import { AS_OF_PARAMS, PointInTimeMember } from './as-of.js'
import { MOMENT_FORMS, MOMENT_PATTERN } from '../../engine/asof/point-in-time.js'
import { EnumParam, StringParam } from './params.js'

export const OPTIONS_CURRENCY = EnumParam(['BTC', 'ETH'] as const, {
  description: 'underlying currency',
  default: 'BTC'
})

export const ChainQuery = Type.Object({ currency: Type.Optional(OPTIONS_CURRENCY), ...AS_OF_PARAMS })

const nullableRatio = Type.Union([Type.Number(), Type.Null()], { description: 'null when the divisor is 0' })

export const ChainResponse = Type.Object({
  currency: Type.String({ enum: ['BTC', 'ETH'] }),
  underlying_price: Type.Number({ description: 'index price of the underlying, USD' }),
  total_call_oi: Type.Number({ description: 'coins, all unexpired calls' }),
  total_put_oi: Type.Number({ description: 'coins, all unexpired puts' }),
  total_call_volume: Type.Number({ description: '24h, coins' }),
  total_put_volume: Type.Number({ description: '24h, coins' }),
  pcr_oi: nullableRatio,
  pcr_volume: nullableRatio,
  oi_by_strike: Type.Array(Type.Object({ strike: Type.Number(), call_oi: Type.Number(), put_oi: Type.Number() }), {
    description: 'summed across expiries; strikes from 0.5x to 2.0x underlying_price inclusive, ascending'
  }),
  expiry_summary: Type.Record(
    Type.String({ description: 'expiry date code as the exchange writes it, e.g. 5JAN25' }),
    Type.Object({
      call_oi: Type.Number(),
      put_oi: Type.Number(),
      pcr: nullableRatio,
      max_pain: Type.Number({ description: 'max-pain strike' }),
      total_contracts: Type.Integer()
    })
  ),
  max_pain: Type.Record(
    Type.String(),
    Type.Object({
      strike: Type.Number(),
      total_pain_quote: Type.Number({ description: 'payout to holders at that strike, USD' }),
      quote_currency: Type.Literal('USD')
    })
  ),
  updated: Type.Integer({ description: 'snapshot time of the chain (its newest quote), epoch seconds' }),
  point_in_time: Type.Optional(PointInTimeMember)
})

export const OPTIONS_HISTORY_METRICS = ['pcr_oi', 'total_oi', 'max_pain'] as const

export const HistoryQuery = Type.Object({
  currency: Type.Optional(OPTIONS_CURRENCY),
  metric: EnumParam(OPTIONS_HISTORY_METRICS, {
    description:
      'pcr_oi: put/call OI ratio; total_oi: calls + puts, coins; max_pain: max-pain strike of the nearest unexpired expiry'
  }),
  hours: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'window, hours back from now (1 to 720)' })
  ),
  known_by: Type.Optional(
    StringParam({
      description:
        "use only snapshots the service had received by this moment, so a later import never changes the series; without it every stored snapshot. Rule: a date and time that exist, not later than the server's clock",
      pattern: MOMENT_PATTERN,
      rule: MOMENT_FORMS,
      maxLength: 32,
      examples: ['2026-01-02T00:00:00Z']
    })
  )
})

export const HistoryResponse = Type.Object({
  currency: Type.String({ enum: ['BTC', 'ETH'] }),
  metric: Type.String({ enum: [...OPTIONS_HISTORY_METRICS] }),
  resolution: Type.String({
    enum: ['snapshot', '1h'],
    description: 'snapshot rows up to 48 h, hourly (last snapshot of each hour) beyond'
  }),
  points: Type.Array(
    Type.Object({
      ts: Type.Integer({ description: 'epoch seconds' }),
      value: Type.Union([Type.Number(), Type.Null()], {
        description: 'null when undefined (e.g. no calls for a ratio)'
      })
    })
  )
})
