/**
 * @module
 * Shared parameter and response pieces of the historical and backtest endpoints (service spec
 * "Historical and backtest"; envelope in engine/history/envelope.ts, docs/history.md).
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { TIMEFRAME_NAMES } from '../../engine/history/timeframes.js'
import { EnumParam, IntParam, StringParam } from './params.js'

export const HISTORY_EXCHANGES = ['binance', 'bybit', 'okx'] as const

/** Latest epoch ms accepted (year 2286): keeps values integral and far from overflow. */
const MAX_EPOCH_MS = 9_999_999_999_999

export const SymbolParam = StringParam({
  description:
    'base asset (BTC; also BTC/USDT, BTC/USDT:USDT) or exchange-native market (BTCUSDT, BTC-USDT-SWAP); case-insensitive',
  pattern: '^[A-Za-z0-9][A-Za-z0-9/:_.-]{0,39}$'
})

export const ExchangeParam = EnumParam(HISTORY_EXCHANGES, {
  description: 'venue; default: the first of binance, bybit, okx listing the symbol'
})

export const TimeframeParam = EnumParam(TIMEFRAME_NAMES, {
  description: 'candle width; maximum lookback 1m 30d, 5m 90d, 15m 180d, 1h 365d, 4h/1d/1w/1M 24 months'
})

export const LookbackParam = StringParam({
  description: 'how far back from end_time (or now): a count and a unit, e.g. 90m, 12h, 30d, 2w, 6M, 1y',
  maxLength: 8
})

/** An interval (bucket width) in the same notation, e.g. 1h, 4h, 1d. */
export const IntervalParam = (description: string, def?: string) =>
  StringParam({ description, maxLength: 8, ...(def === undefined ? {} : { default: def }) })

export const EpochMsParam = (description: string) => IntParam(0, MAX_EPOCH_MS, { description })

export const DateParam = (description: string) =>
  StringParam({ description: `${description}, YYYY-MM-DD (UTC)`, pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 })

const Gap = Type.Object({
  start: Type.Integer({ description: 'first missing bucket, epoch ms' }),
  end: Type.Integer({ description: 'end of the last missing bucket (exclusive), epoch ms' })
})

const Meta = Type.Object(
  {
    symbol: Type.Union([Type.String(), Type.Null()], { description: 'exchange-native market symbol' }),
    base: Type.Union([Type.String(), Type.Null()]),
    exchange: Type.Union([Type.String(), Type.Null()]),
    timeframe: Type.String({ description: 'bucket width of the rows' }),
    start: Type.Integer({ description: 'served range start, inclusive, epoch ms' }),
    end: Type.Integer({ description: 'served range end, exclusive, epoch ms' }),
    rows: Type.Integer(),
    source: Type.String({ description: 'table or view the rows come from' })
  },
  { additionalProperties: true }
)

/** The historical envelope around a record schema. */
export function Envelope(record: TSchema, description?: string) {
  return Type.Object(
    {
      data: Type.Array(record),
      meta: Meta,
      gaps: Type.Array(Gap, {
        description: 'bucket ranges without underlying data; never filled with invented values'
      }),
      next_cursor: Type.Union([Type.Integer(), Type.Null()], {
        description: 'epoch ms of the next page start (pass as cursor); null on the last page'
      })
    },
    description === undefined ? {} : { description }
  )
}

const nullableNumber = Type.Union([Type.Number(), Type.Null()])
export { nullableNumber }

export const OhlcvRecord = Type.Object({
  timestamp: Type.Integer({ description: 'bucket start, epoch ms' }),
  symbol: Type.String(),
  timeframe: Type.String(),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  close: Type.Number(),
  volume_base: Type.Number({ description: 'base-asset units' }),
  volume_quote: Type.Number({ description: 'quote units (USDT)' }),
  trades: Type.Integer()
})

export const OhlcvQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  timeframe: TimeframeParam,
  lookback: Type.Optional(LookbackParam),
  start_time: Type.Optional(EpochMsParam('range start, epoch ms (inclusive); with end_time instead of lookback')),
  end_time: Type.Optional(EpochMsParam('range end, epoch ms (exclusive); default now')),
  limit: Type.Optional(IntParam(1, 10_000, { description: 'candles per page', default: 1000 })),
  cursor: Type.Optional(EpochMsParam('next_cursor of the previous page'))
})

export const OhlcvResponse = Envelope(OhlcvRecord, 'closed candles, oldest first; gaps list buckets without trades')

export const OhlcvMultiQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  timeframes: Type.Optional(
    Type.Unsafe<string[]>({
      type: 'array',
      items: { type: 'string', enum: [...TIMEFRAME_NAMES] },
      'x-format': 'csv',
      description: 'comma list of timeframes; default all eight'
    })
  ),
  timestamp: Type.Optional(EpochMsParam('the moment to look from, epoch ms; default now'))
})

export const OhlcvMultiResponse = Envelope(
  OhlcvRecord,
  'per timeframe, the latest candle closed at `timestamp` (meta.missing lists timeframes without one)'
)

export const ResampleQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  source_timeframe: TimeframeParam,
  target_timeframe: IntervalParam('target width, a whole multiple of the source: e.g. 3m, 2h, 12h, 3d, 2w, 3M'),
  lookback: Type.Optional(LookbackParam)
})

export const ResampleResponse = Envelope(OhlcvRecord, 'closed target candles, oldest first')

/** A comma list of symbols (base assets or native names). */
export const SymbolsParam = (description: string) =>
  Type.Unsafe<string[]>({
    type: 'array',
    items: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9/:_.-]{0,39}$' },
    'x-format': 'csv',
    description
  })

const AlignedRecord = Type.Object(
  {
    timestamp: Type.Integer({ description: 'bucket start, epoch ms' }),
    symbol: Type.String(),
    base: Type.String(),
    exchange: Type.String(),
    open: Type.Optional(nullableNumber),
    high: Type.Optional(nullableNumber),
    low: Type.Optional(nullableNumber),
    close: Type.Optional(nullableNumber),
    volume_base: Type.Optional(nullableNumber),
    volume_quote: Type.Optional(nullableNumber),
    trades: Type.Optional(nullableNumber),
    funding_rate: Type.Optional(nullableNumber),
    open_interest: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'USD, last in bucket' })),
    open_interest_base: Type.Optional(nullableNumber),
    liquidations_long_usd: Type.Optional(nullableNumber),
    liquidations_short_usd: Type.Optional(nullableNumber),
    whale_flow: Type.Optional(
      Type.Union([Type.Number(), Type.Null()], { description: 'USD into whale wallets minus out' })
    )
  },
  { description: 'one bucket of one market; a requested field without data in the bucket is null' }
)

export const CORRELATED_INCLUDE = [
  'ohlcv',
  'whale_accumulation',
  'whale_flow',
  'funding_rates',
  'funding_rate',
  'oi',
  'open_interest',
  'liquidations'
] as const

export const CorrelatedQuery = Type.Object({
  asset: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  start_time: DateParam('first day'),
  end_time: DateParam('last day (inclusive)'),
  include: Type.Optional(
    Type.Unsafe<string[]>({
      type: 'array',
      items: { type: 'string', enum: [...CORRELATED_INCLUDE] },
      'x-format': 'csv',
      default: ['ohlcv', 'whale_accumulation', 'funding_rates'],
      description:
        'datasets: ohlcv, whale_accumulation (= whale_flow), funding_rates (= funding_rate), oi (= open_interest), liquidations'
    })
  ),
  interval: Type.Optional(IntervalParam('bucket width, e.g. 1h, 4h, 1d', '1d'))
})

export const BACKTEST_FIELDS = ['ohlcv', 'funding_rate', 'oi', 'whale_flow', 'open_interest', 'liquidations'] as const

export const BacktestDataQuery = Type.Object({
  symbols: SymbolsParam('comma list of up to 20 symbols (base assets or native names)'),
  timeframe: TimeframeParam,
  start: DateParam('first day'),
  end: DateParam('last day (inclusive)'),
  fields: Type.Optional(
    Type.Unsafe<string[]>({
      type: 'array',
      items: { type: 'string', enum: [...BACKTEST_FIELDS] },
      'x-format': 'csv',
      default: ['ohlcv'],
      description: 'ohlcv, funding_rate, oi (= open_interest), whale_flow, liquidations'
    })
  ),
  exchange: Type.Optional(ExchangeParam)
})

export const AlignedResponse = Envelope(AlignedRecord, 'rows per market and bucket, oldest first per market')

export const EXPORT_FORMAT_NAMES = ['csv', 'json', 'parquet', 'hdf5', 'arrow'] as const

export const ExportQuery = Type.Object({
  symbols: SymbolsParam('comma list of up to 300 base assets or native market names'),
  timeframe: TimeframeParam,
  lookback: Type.Optional(LookbackParam),
  start_time: Type.Optional(EpochMsParam('range start, epoch ms (inclusive); with end_time instead of lookback')),
  end_time: Type.Optional(EpochMsParam('range end, epoch ms (exclusive); default now')),
  format: EnumParam(EXPORT_FORMAT_NAMES, {
    description:
      'csv (with header), json (NDJSON unless json_layout=array), parquet, hdf5 (row-limited), arrow (IPC stream)'
  }),
  json_layout: Type.Optional(
    EnumParam(['ndjson', 'array'] as const, {
      description: 'format=json only: one object per line, or one JSON array',
      default: 'ndjson'
    })
  ),
  exchange: Type.Optional(ExchangeParam)
})
