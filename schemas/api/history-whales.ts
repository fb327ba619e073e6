/**
 * @module
 * Parameters and responses of `GET /v1/historical/whales`, `/v1/historical/whales/price-correlation` and
 * `/v1/historical/snapshots` (service spec "Historical and backtest"; docs/history-whales.md).
 */
import { Type } from '@sinclair/typebox'
import { KNOWN_BY_PARAM } from './as-of.js'
import { MAX_LAG } from '../../engine/history/correlation.js'
import { SNAPSHOT_METRICS } from '../../engine/history/snapshots.js'
import { MAX_BUCKETS } from '../../engine/history/snapshot-grid.js'
import { WHALE_METRICS } from '../../engine/history/whale-history.js'
import { Envelope, IntervalParam, symbolParam } from './history.js'
import { parseInterval } from '../../engine/history/snapshot-grid.js'
import { WHOLE_HOURS_MONTHS_PATTERN } from '../../engine/history/span-grammar.js'
import { DurationParam, EnumParam, ListParam, StringParam, type SpanGrammar } from './params.js'

const INTERVAL_RULE = `whole hours, days, weeks or months, e.g. 1h, 4h, 1d, 1w, 1M (the finest stored data is hourly). Rule: at most ${MAX_BUCKETS} buckets over the lookback`

/** Bucket widths of the hourly and daily aggregates (parseInterval). */
const GRID: SpanGrammar = { pattern: WHOLE_HOURS_MONTHS_PATTERN, parse: parseInterval }

export const AssetParam = StringParam({
  description:
    'base asset, case-insensitive (BTC counts BTC, WBTC, BTCB, CBBTC; ETH counts ETH, WETH; stablecoins are their own token). An asset without whale flow history (price-correlation: or without candles) answers 400 unknown_symbol',
  pattern: '^[A-Za-z0-9]{1,20}$',
  maxLength: 20,
  examples: ['BTC', 'ETH']
})

const Lookback = Type.Optional(
  DurationParam(
    "how far back from now; default 30d. Rule: at most 24 months, within the plan's history depth, and at least one interval"
  )
)

const nullable = (description: string) => Type.Union([Type.Number(), Type.Null()], { description })

export const WhaleHistoryQuery = Type.Object({
  asset: AssetParam,
  metric: EnumParam(WHALE_METRICS, {
    description:
      'net_accumulation (USD in - out of tracked wallets), inflow, outflow, volume (USD, swaps included) or event_count',
    default: 'net_accumulation'
  }),
  interval: IntervalParam(`bucket width: ${INTERVAL_RULE}`, '1d', undefined, GRID),
  lookback: Lookback,
  ...KNOWN_BY_PARAM
})

export const WhaleHistoryRecord = Type.Object({
  timestamp: Type.Integer({ description: 'bucket start, epoch ms' }),
  asset: Type.String(),
  metric: Type.String(),
  value: nullable('the metric (USD, or rows for event_count); null when the bucket has no whale row of the asset'),
  whale_count: Type.Union([Type.Integer(), Type.Null()], { description: 'distinct tracked wallets active' }),
  exchange_inflow: nullable(
    'USD sent by tracked wallets to labelled exchange hot wallets; null beyond the 90-day raw retention'
  ),
  exchange_outflow: nullable('USD received by tracked wallets from labelled exchange hot wallets; null beyond 90 days')
})

export const WhaleHistoryResponse = Envelope(
  WhaleHistoryRecord,
  'one record per closed bucket, oldest first; gaps list buckets without whale rows'
)

export const PriceCorrelationQuery = Type.Object({
  asset: AssetParam,
  lookback: Lookback,
  interval: IntervalParam(`bucket width (lags count these buckets): ${INTERVAL_RULE}`, '1h', undefined, GRID),
  ...KNOWN_BY_PARAM
})

export const LagCorrelationRecord = Type.Object({
  lag: Type.Integer({ minimum: 0, maximum: MAX_LAG, description: 'buckets the price return trails the flow by' }),
  correlation: Type.Union([Type.Number({ minimum: -1, maximum: 1 }), Type.Null()], {
    description: 'Pearson r of net flow at t and return at t + lag; null below 3 samples or with a constant side'
  }),
  samples: Type.Integer({ description: 'bucket pairs with both a net flow and a return' })
})

export const PriceCorrelationResponse = Envelope(
  LagCorrelationRecord,
  `lags 0 to ${MAX_LAG}; gaps list buckets missing the net flow or the close`
)

export const SnapshotQuery = Type.Object({
  symbol: symbolParam(
    'a base asset aggregates its markets, a market symbol uses that market alone; default BTC',
    'BTC'
  ),
  metrics: ListParam(SNAPSHOT_METRICS, {
    description: 'metrics; default all five',
    default: [...SNAPSHOT_METRICS]
  }),
  interval: IntervalParam(`bucket width: ${INTERVAL_RULE}`, '1d', undefined, GRID),
  lookback: Lookback,
  ...KNOWN_BY_PARAM
})

export const SnapshotRecord = Type.Object(
  {
    timestamp: Type.Integer({ description: 'bucket start, epoch ms' }),
    whale_net_flow: Type.Optional(nullable('USD into tracked whale wallets minus out')),
    funding_rate: Type.Optional(nullable('mean over the markets of the funding rate per 8 hours (decimal fraction)')),
    oi: Type.Optional(nullable('open interest, USD, summed over the markets')),
    price: Type.Optional(nullable('close of the price market (meta.price_market)')),
    volume: Type.Optional(nullable('quote volume (USD) summed over the markets'))
  },
  { description: 'timestamp and the requested metrics; null where a metric has no data in the bucket' }
)

export const SnapshotResponse = Envelope(
  SnapshotRecord,
  'one record per closed bucket, oldest first; gaps list buckets where a requested metric is null'
)
