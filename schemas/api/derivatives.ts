/**
 * @module
 * Parameter and response schemas of `GET /v1/derivatives/screener`.
 */
import { AS_OF_PARAMS, PointInTimeMember } from './as-of.js'
import { Type } from '@sinclair/typebox'
import { PERP_VENUE_IDS } from '../../catalog/venues.js'
import { symbolParam } from './history.js'
import { EnumParam, IntParam } from './params.js'

/** The venues of the screener: the perpetual venues, in the default venue order. */
export const SCREENER_EXCHANGES = PERP_VENUE_IDS
export const SCREENER_METRICS = ['open_interest', 'funding_rate', 'volume'] as const
export const SCREENER_SORT_FIELDS = [
  'open_interest_change_24h',
  'funding_rate',
  'funding_rate_annualized',
  'long_short_ratio_cumulative',
  'volume_change_24h',
  'open_interest_usd',
  'volume_24h_usd',
  'symbol'
] as const

export const ScreenerQuery = Type.Object({
  symbol: Type.Optional(symbolParam('the base asset of the rows; a pair or market names its base')),
  exchange: Type.Optional(
    EnumParam(SCREENER_EXCHANGES, { description: 'one of the three supported perpetual venues' })
  ),
  metric: Type.Optional(
    EnumParam(SCREENER_METRICS, {
      description:
        "keep only rows with this metric and sort by it (open_interest: open_interest_change_24h, funding_rate: funding_rate, volume: volume_change_24h) unless 'sort' is given"
    })
  ),
  sort: Type.Optional(EnumParam(SCREENER_SORT_FIELDS, { description: 'field to sort by', default: 'volume_24h_usd' })),
  order: Type.Optional(EnumParam(['asc', 'desc'] as const, { description: 'sort order', default: 'desc' })),
  limit: Type.Optional(IntParam(1, 1000, { description: 'rows at most', default: 1000 })),
  ...AS_OF_PARAMS
})

const nullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description })

export const ScreenerRowSchema = Type.Object({
  symbol: Type.String({ description: 'exchange-native symbol, e.g. BTCUSDT or BTC-USDT-SWAP' }),
  exchange: Type.String(),
  base: Type.String(),
  open_interest_change_24h: nullableNumber('percent; null without a reading 24 h ago'),
  funding_rate: nullableNumber('decimal fraction per funding interval'),
  funding_interval_hours: nullableNumber('hours between settlements'),
  funding_rate_annualized: nullableNumber('funding_rate x 8760 / interval, decimal fraction per year'),
  long_short_ratio_cumulative: nullableNumber('latest accounts long/short ratio of this market'),
  volume_change_24h: nullableNumber('percent: last 24 h quote volume vs the 24 h before'),
  open_interest_usd: nullableNumber('USD'),
  volume_24h_usd: Type.Number({ description: 'quote volume of the last 24 h, USD' }),
  updated: Type.Integer({ description: 'newest reading, epoch seconds' })
})

export const ScreenerResponse = Type.Object({
  updated: Type.Integer({ description: 'newest reading among the rows, epoch seconds' }),
  count: Type.Integer(),
  rows: Type.Array(ScreenerRowSchema),
  point_in_time: Type.Optional(PointInTimeMember)
})
