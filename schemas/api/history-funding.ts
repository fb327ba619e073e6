/**
 * @module
 * Parameter and response schemas of the funding history endpoints:
 * `/v1/historical/derivatives/funding-heatmap`, `.../funding-heatmap/comparative` and `.../funding-stats`
 * (docs/history-funding.md). Rates are decimal fractions per the market's funding interval.
 */
import { Type } from '@sinclair/typebox'
import { KNOWN_BY_PARAM } from './as-of.js'
import { perpVenueIdList } from '../../catalog/venues.js'
import { FUNDING_METRICS } from '../../engine/history/funding-stats.js'
import { Envelope, ExchangeParam, HISTORY_EXCHANGES, IntervalParam, SymbolParam, nullableNumber } from './history.js'
import { parseFundingInterval } from '../../engine/history/funding-window.js'
import { WHOLE_HOURS_PATTERN } from '../../engine/history/span-grammar.js'
import { DURATION_RULE, DurationParam, ListParam } from './params.js'

const lookback = (def: string) =>
  DurationParam(
    `how far back from now; default ${def}. Rule: at most 24 months, within the plan's history depth, and at least one interval`
  )

const interval = (def: string) =>
  IntervalParam(
    `bucket width: a whole number of hours, e.g. 1h, 4h, 8h, 12h, 1d, 1w, 1M (funding history is kept per hour)`,
    def,
    `a whole number of hours, e.g. 1h, 4h, 8h, 12h, 1d, 1w or 1M (funding history is kept per hour), written as ${DURATION_RULE}`,
    { pattern: WHOLE_HOURS_PATTERN, parse: parseFundingInterval }
  )

export const HeatmapQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  interval: Type.Optional(interval('1h')),
  lookback: Type.Optional(lookback('7d')),
  ...KNOWN_BY_PARAM
})

export const ComparativeQuery = Type.Object({
  symbol: SymbolParam,
  exchanges: Type.Optional(
    ListParam(HISTORY_EXCHANGES, {
      description: `venues; default: every venue listing the symbol (${perpVenueIdList()} order). A venue without a market of the symbol answers 400 unknown_symbol`
    })
  ),
  interval: Type.Optional(interval('4h')),
  lookback: Type.Optional(lookback('7d')),
  ...KNOWN_BY_PARAM
})

export const StatsQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  lookback: Type.Optional(lookback('30d')),
  metrics: Type.Optional(
    ListParam(FUNDING_METRICS, {
      description: 'mean, median, std_dev, min, max (default all)',
      default: [...FUNDING_METRICS]
    })
  ),
  ...KNOWN_BY_PARAM
})

const rate = (description: string) => Type.Union([Type.Number(), Type.Null()], { description })

const valueFields = {
  rate: rate('last reading in the bucket, decimal fraction per funding interval; null: no reading'),
  rate_annualized: rate('rate x 8760 / interval_hours, decimal fraction per year'),
  rate_8h: rate('rate x 8 / interval_hours: the rate on an 8-hour basis'),
  rate_avg: rate('mean of the bucket readings, per funding interval'),
  rate_min: rate('lowest reading in the bucket'),
  rate_max: rate('highest reading in the bucket'),
  interval_hours: rate('hours between settlements of the market'),
  readings: Type.Integer({ description: 'readings in the bucket; 0 where the values are null' })
}

export const FundingCellSchema = Type.Object({
  timestamp: Type.Integer({ description: 'bucket start, epoch ms' }),
  ...valueFields
})

export const HeatmapResponse = Envelope(FundingCellSchema, 'one cell per bucket of the window, oldest first')

export const ComparativeRowSchema = Type.Object({
  timestamp: Type.Integer({ description: 'bucket start, epoch ms' }),
  exchanges: Type.Record(Type.String(), Type.Object(valueFields), {
    description: 'one entry per requested exchange (keys in meta.exchanges order)'
  }),
  spread_8h: rate('largest minus smallest rate_8h among exchanges with a reading; null with fewer than two')
})

export const ComparativeResponse = Envelope(
  ComparativeRowSchema,
  'one row per bucket; gaps are buckets where no exchange has a reading, meta.markets[].gaps per market'
)

const RateAt = Type.Union([
  Type.Object({
    rate: Type.Number({ description: 'decimal fraction per funding interval' }),
    timestamp: Type.Integer({ description: 'start of the hour of that sample, epoch ms' })
  }),
  Type.Null()
])

export const StatsRecord = Type.Object({
  symbol: Type.String(),
  base: Type.String(),
  exchange: Type.String(),
  samples: Type.Integer({ description: 'hours with a reading in the window' }),
  mean: Type.Optional(nullableNumber),
  median: Type.Optional(nullableNumber),
  std_dev: Type.Optional(rate('population standard deviation (divides by n)')),
  min: Type.Optional(nullableNumber),
  max: Type.Optional(nullableNumber),
  annualized_mean: rate('mean over the samples of rate x 8760 / interval_hours, decimal fraction per year'),
  extremes: Type.Object({ max: RateAt, min: RateAt }, { description: 'earliest sample wins ties' }),
  current: Type.Union([
    Type.Object({
      rate: Type.Number({ description: 'the newest sample of the window' }),
      timestamp: Type.Integer({ description: 'its hour start, epoch ms' }),
      interval_hours: Type.Number(),
      rate_annualized: nullableNumber,
      percentile_rank: Type.Number({ description: 'percent of the window samples at or below the current rate' })
    }),
    Type.Null()
  ])
})

export const StatsResponse = Envelope(StatsRecord, 'one record: statistics of the hourly series of the window')
