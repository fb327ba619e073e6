/**
 * @module
 * Shared parameter and response pieces of the historical and backtest endpoints (service spec
 * "Historical and backtest"; envelope in engine/history/envelope.ts, docs/history.md).
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { PERP_VENUE_IDS, perpTradingViewPrefixes, perpVenueIdList } from '../../catalog/venues.js'
import { TIMEFRAME_NAMES } from '../../engine/history/timeframes.js'
import {
  SYMBOL_DATA_RULE,
  SYMBOL_FORMS,
  SYMBOL_PARAM_DESCRIPTION,
  SYMBOL_PATTERN,
  VENUE_SYMBOL_PATTERN,
  symbolRefusal
} from '../../engine/symbols/resolve.js'
import {
  CsvParam,
  DateParam,
  DurationParam,
  EnumParam,
  IntParam,
  REFUSAL,
  StringParam,
  type Refusal,
  type SpanGrammar
} from './params.js'
import { parseAlignedInterval } from '../../engine/history/aligned.js'
import { MONTHS_SPAN_PATTERN } from '../../engine/history/span-grammar.js'
import { KNOWN_BY_PARAM } from './as-of.js'

/** The venues of the historical endpoints: the perpetual venues, in the default venue order. */
export const HISTORY_EXCHANGES = PERP_VENUE_IDS

/** Most rows one aligned-data call answers (server/routes/history/data.ts MAX_ALIGNED_ROWS), for the text. */
const MAX_ALIGNED_ROWS = '100,000'

/** Latest epoch ms accepted (year 2286): keeps values integral and far from overflow. */
const MAX_EPOCH_MS = 9_999_999_999_999

/**
 * How a symbol parameter is read (engine/symbols/resolve.ts: the one resolver): the pattern is its grammar
 * (engine/symbols/grammar.ts), the rule what the data decides.
 */
export const SYMBOL_RULE = `${SYMBOL_PARAM_DESCRIPTION}. ${SYMBOL_DATA_RULE}`

/** Where the symbol also picks the venue: only the prefixes of served venues, and they must agree with `exchange`. */
const VENUE_RULE = `Rule: a TradingView prefix names a served venue (${perpTradingViewPrefixes()}) and must agree with exchange when both are given`

/**
 * A symbol parameter: any form the resolver reads, at most 40 characters; a value off the pattern answers
 * the resolver's own message.
 * @param venue the endpoint picks a venue from the symbol (`venueOf`): prefixes of served venues only
 */
export const symbolParam = (description?: string, def?: string, venue = true) =>
  StringParam({
    description: `${description === undefined ? '' : `${description}. `}${SYMBOL_RULE}${venue ? `. ${VENUE_RULE}` : ''}`,
    pattern: venue ? VENUE_SYMBOL_PATTERN : SYMBOL_PATTERN,
    rule: SYMBOL_FORMS,
    refusal: (name, value) => symbolRefusal(name, value, venue),
    maxLength: 40,
    examples: ['BTC', 'ETH', 'BTCUSDT', 'BINANCE:ETHUSDT.P'],
    ...(def === undefined ? {} : { default: def })
  })

export const SymbolParam = symbolParam()

export const ExchangeParam = EnumParam(HISTORY_EXCHANGES, {
  description: `venue; default: the first of ${perpVenueIdList()} listing the symbol`
})

export const TimeframeParam = EnumParam(TIMEFRAME_NAMES, {
  description: 'candle width; maximum lookback 1m 30d, 5m 90d, 15m 180d, 1h 365d, 4h/1d/1w/1M 24 months'
})

/** Where the limits of every time range are stated (engine/history/range.ts). */
export const RANGE_RULE =
  "Rule: the range may not exceed the endpoint's maximum lookback nor reach further back than the plan's history depth (free 30 days, trader 365, pro 730, enterprise all), counted from now"

export const LookbackParam = DurationParam(
  `how far back from end_time (or now); not together with start_time. ${RANGE_RULE}`
)

/** An interval (bucket width) in the same notation, e.g. 1h, 4h, 1d. */
export const IntervalParam = (description: string, def?: string, rule?: string, grammar?: SpanGrammar) =>
  DurationParam(description, def, rule, grammar)

/** Spans of at most months (aligned data intervals, resample targets): years do not tile candle tables. */
export const MONTHS_SPAN: SpanGrammar = { pattern: MONTHS_SPAN_PATTERN, parse: parseAlignedInterval }

export const EpochMsParam = (description: string) => IntParam(0, MAX_EPOCH_MS, { description })

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
    source: Type.String({ description: 'table or view the rows come from' }),
    known_by: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'present when known_by was given: records received after it were not used'
      })
    )
  },
  { additionalProperties: true }
)

/** The historical envelope around a record schema. */
export function Envelope<R extends TSchema>(record: R, description?: string) {
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

const START_TIME = EpochMsParam(
  `range start, epoch ms (inclusive); with end_time instead of lookback. Rule: before end_time (or now); not together with lookback. ${RANGE_RULE}`
)
const END_TIME = EpochMsParam(
  "range end, epoch ms (exclusive); default now. Rule: a range ending before the plan's history depth is refused"
)

export const OhlcvQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  timeframe: TimeframeParam,
  lookback: Type.Optional(LookbackParam),
  start_time: Type.Optional(START_TIME),
  end_time: Type.Optional(END_TIME),
  limit: Type.Optional(IntParam(1, 10_000, { description: 'candles per page', default: 1000 })),
  cursor: Type.Optional(
    EpochMsParam(
      'next_cursor of the previous page. Rule: within the requested range (pass the same range parameters as the first page)'
    )
  ),
  ...KNOWN_BY_PARAM
})

export const OhlcvResponse = Envelope(OhlcvRecord, 'closed candles, oldest first; gaps list buckets without trades')

export const OhlcvMultiQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  timeframes: Type.Optional(
    CsvParam<string>({ type: 'string', enum: [...TIMEFRAME_NAMES] }, { description: 'timeframes; default all eight' })
  ),
  timestamp: Type.Optional(
    EpochMsParam(
      "the moment to look from, epoch ms; default now (a later moment is read as now). Rule: within the plan's history depth"
    )
  ),
  ...KNOWN_BY_PARAM
})

export const OhlcvMultiResponse = Envelope(
  OhlcvRecord,
  'per timeframe, the latest candle closed at `timestamp` (meta.missing lists timeframes without one)'
)

export const ResampleQuery = Type.Object({
  symbol: SymbolParam,
  exchange: Type.Optional(ExchangeParam),
  source_timeframe: TimeframeParam,
  target_timeframe: IntervalParam(
    'target width, not years. Rule: a whole multiple of source_timeframe (every target bucket a union of whole source buckets), e.g. 3m, 2h, 12h, 3d, 2w, 3M',
    undefined,
    undefined,
    MONTHS_SPAN
  ),
  lookback: Type.Optional(
    DurationParam(
      `how far back from now; default 100 target buckets. Rule: at most the maximum lookback of source_timeframe (1m 30d, 5m 90d, 15m 180d, 1h 365d, longer 24 months) and within the plan's history depth`
    )
  ),
  ...KNOWN_BY_PARAM
})

export const ResampleResponse = Envelope(OhlcvRecord, 'closed target candles, oldest first')

/** A comma list of symbols (base assets or native names). */
export const SymbolsParam = (description: string, maxItems: number) =>
  CsvParam<string>(
    {
      type: 'string',
      pattern: VENUE_SYMBOL_PATTERN,
      maxLength: 40,
      examples: ['BTC', 'ETH'],
      'x-rule': SYMBOL_FORMS,
      [REFUSAL]: ((name, value) => symbolRefusal(name, value, true)) satisfies Refusal
    },
    { description: `${description}, each written as \`symbol\` is. ${SYMBOL_RULE}. ${VENUE_RULE}`, maxItems }
  )

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
  start_time: DateParam(`first day. ${RANGE_RULE}`),
  end_time: DateParam(
    `last day (inclusive). Rule: not before start_time; at most ${MAX_ALIGNED_ROWS} rows (buckets) per call`
  ),
  include: Type.Optional(
    CsvParam<string>(
      { type: 'string', enum: [...CORRELATED_INCLUDE] },
      {
        default: ['ohlcv', 'whale_accumulation', 'funding_rates'],
        description:
          'datasets: ohlcv, whale_accumulation (= whale_flow), funding_rates (= funding_rate), oi (= open_interest), liquidations'
      }
    )
  ),
  interval: Type.Optional(
    IntervalParam(
      `bucket width, e.g. 1h, 4h, 1d; not years. Rule: the dates may span at most the maximum lookback of the widest candle timeframe the interval is a whole multiple of (1m 30 days, 5m 90, 15m 180, 1h 365, 4h/1d/1w/1M 24 months); at most ${MAX_ALIGNED_ROWS} buckets`,
      '1d',
      undefined,
      MONTHS_SPAN
    )
  ),
  ...KNOWN_BY_PARAM
})

export const BACKTEST_FIELDS = ['ohlcv', 'funding_rate', 'oi', 'whale_flow', 'open_interest', 'liquidations'] as const

export const BacktestDataQuery = Type.Object({
  symbols: SymbolsParam('symbols (base assets or native names)', 20),
  timeframe: TimeframeParam,
  start: DateParam(`first day. ${RANGE_RULE} (the timeframe's maximum lookback)`),
  end: DateParam(
    `last day (inclusive). Rule: not before start; at most ${MAX_ALIGNED_ROWS} rows (markets x buckets) per call`
  ),
  fields: Type.Optional(
    CsvParam<string>(
      { type: 'string', enum: [...BACKTEST_FIELDS] },
      { default: ['ohlcv'], description: 'ohlcv, funding_rate, oi (= open_interest), whale_flow, liquidations' }
    )
  ),
  exchange: Type.Optional(ExchangeParam),
  ...KNOWN_BY_PARAM
})

export const AlignedResponse = Envelope(AlignedRecord, 'rows per market and bucket, oldest first per market')

export const EXPORT_FORMAT_NAMES = ['csv', 'json', 'parquet', 'hdf5', 'arrow'] as const
/** The export layouts: one file in `format`, or freqtrade's data directory as a tar archive. */
export const EXPORT_LAYOUT_NAMES = ['tidewatch', 'freqtrade'] as const

export const ExportQuery = Type.Object({
  symbols: SymbolsParam('base assets or native market names', 300),
  timeframe: TimeframeParam,
  lookback: Type.Optional(LookbackParam),
  start_time: Type.Optional(START_TIME),
  end_time: Type.Optional(END_TIME),
  format: Type.Optional(
    EnumParam(EXPORT_FORMAT_NAMES, {
      description:
        'csv (with header), json (NDJSON unless json_layout=array), parquet, hdf5 (row-limited), arrow (IPC stream). Rule: required with layout=tidewatch (the default); with layout=freqtrade (feather files) absent or arrow'
    })
  ),
  layout: Type.Optional(
    EnumParam(EXPORT_LAYOUT_NAMES, {
      description:
        "tidewatch: one file in `format`. freqtrade: a tar archive that unpacks into freqtrade's data directory of `exchange` (required): futures/<PAIR>-<tf>-futures.feather per market, funding_rate files where funding is stored, and tidewatch-manifest.json (SHA-256, rows, gaps per file). See docs/export-formats.md",
      default: 'tidewatch'
    })
  ),
  json_layout: Type.Optional(
    EnumParam(['ndjson', 'array'] as const, {
      description: 'format=json only: one object per line, or one JSON array',
      default: 'ndjson'
    })
  ),
  exchange: Type.Optional(
    EnumParam(HISTORY_EXCHANGES, {
      description: `${ExchangeParam.description}. Rule: required with layout=freqtrade (freqtrade keeps one data directory per exchange)`
    })
  ),
  ...KNOWN_BY_PARAM
})
