/**
 * @module
 * data.binance.vision files (binance/binance-public-data): what a file is, from its name
 * (`BTCUSDT-aggTrades-2024-01-01.zip`, `BTCUSDT-1m-2024-01.zip`, `BTCUSDT-fundingRate-2024-01.zip`,
 * `BTCUSDT-metrics-2024-01-01.zip`) and its first line, and how its rows map to Tidewatch tables.
 * Headers are optional (older files have none); epoch times are ms, or µs in newer spot files (told apart
 * per row by magnitude, csv-layout.ts). USD-M futures aggTrades have 7 columns, spot 8 (`is_best_match`).
 * Multiplier perpetuals (`1000PEPEUSDT`: prices per 1000 PEPE, sizes in 1000s of PEPE) are stored as the live
 * feed stores them: base `PEPE`, symbol `1000PEPEUSDT`, prices / `{mult:Float64}`, base-coin sizes × mult
 * (quote-currency amounts and rates unchanged). `mult` is 1 for every other market, spot included.
 */
import { scaledBase } from '../normalize/binance-markets.js'
import type { CandleLevel, CsvColumn, CsvLayout, ImportTarget } from './csv-layout.js'
import { bucketOf } from './coverage.js'
import { ImportError } from './import-error.js'
import type { MarketParams } from './market.js'
import { splitConcatenated } from './symbols.js'

const NAME =
  /^([A-Z0-9_]+)-(aggTrades|trades|fundingRate|metrics|bookTicker|bookDepth|\d+[smhdwM]|1mo)-(\d{4}-\d{2}(?:-\d{2})?)\.(?:zip|csv)$/

/** Kline intervals with a candle table of their own. */
const KLINE_LEVELS: Readonly<Record<string, CandleLevel>> = {
  '1m': '1m',
  '5m': '5m',
  '15m': '15m',
  '1h': '1h',
  '4h': '4h',
  '1d': '1d',
  '1w': '1w',
  '1mo': '1mo',
  '1M': '1mo'
}

/** Epoch ms or µs (by magnitude) as DateTime64(3, 'UTC'). */
export const epochTime = (c: string): string =>
  `fromUnixTimestamp64Milli(toInt64(if(${c} >= 100000000000000, intDiv(${c}, 1000), ${c})), 'UTC')`

const col = (name: string, check: CsvColumn['check'], chType: string, optional = false): CsvColumn => ({
  name,
  check,
  chType,
  optional
})
const MARKET_SQL = `{base:String} AS base, {exchange:String} AS exchange, {symbol:String} AS symbol`
/** Coins per unit of the file's prices and base sizes (market.ts `mult`). */
const MULT = '{mult:Float64}'

function aggTrades(spot: boolean): CsvLayout {
  const columns = [
    col('agg_trade_id', 'uint', 'UInt64'),
    col('price', 'udec', 'Float64'),
    col('quantity', 'udec', 'Float64'),
    col('first_trade_id', 'uint', 'UInt64'),
    col('last_trade_id', 'uint', 'UInt64'),
    col('transact_time', 'uint', 'UInt64'),
    col('is_buyer_maker', 'bool', 'String'),
    ...(spot ? [col('is_best_match', 'bool', 'String')] : [])
  ]
  const trades: ImportTarget = {
    table: 'trades',
    columns: ['ts', 'exchange', 'market', 'symbol', 'base', 'quote', 'side', 'price', 'qty', 'trade_id'],
    // the buyer was the maker: the taker sold
    inner: `${epochTime('c_transact_time')} AS ts, ${MARKET_SQL}, {market:String} AS market, {quote:String} AS quote,
      if(lower(c_is_buyer_maker) = 'true', 'sell', 'buy') AS side, c_price / ${MULT} AS price, c_quantity * ${MULT} AS qty,
      toString(c_agg_trade_id) AS trade_id`,
    coverage: { kind: 'candles', level: '1m' }
  }
  return {
    description: `binance aggTrades (${spot ? 'spot' : 'USD-M futures'})`,
    columns,
    timeColumn: 5,
    time: 'epoch',
    header: 'optional',
    targets: [trades]
  }
}

function klines(level: CandleLevel): CsvLayout {
  const columns = [
    col('open_time', 'uint', 'UInt64'),
    col('open', 'udec', 'Float64'),
    col('high', 'udec', 'Float64'),
    col('low', 'udec', 'Float64'),
    col('close', 'udec', 'Float64'),
    col('volume', 'udec', 'Float64'),
    col('close_time', 'uint', 'UInt64'),
    col('quote_volume', 'udec', 'Float64'),
    col('count', 'uint', 'UInt64'),
    col('taker_buy_volume', 'udec', 'Float64'),
    col('taker_buy_quote_volume', 'udec', 'Float64'),
    col('ignore', 'any', 'String')
  ]
  const target: ImportTarget = {
    table: `candles_${level}`,
    columns: ['base', 'exchange', 'symbol', 'bucket', 'open', 'high', 'low', 'close'].concat([
      'volume_base',
      'volume_quote',
      'buy_volume_base',
      'trades'
    ]),
    inner: `${epochTime('c_open_time')} AS ts, ${epochTime('c_close_time')} AS close_ts, ${MARKET_SQL},
      ${bucketOf(level, 'ts')} AS bucket, c_open / ${MULT} AS o, c_high / ${MULT} AS h, c_low / ${MULT} AS l,
      c_close / ${MULT} AS c, c_volume * ${MULT} AS v, c_quote_volume AS qv, c_taker_buy_volume * ${MULT} AS bv, c_count AS n`,
    // candle states as the views build them: open/close by time, sums of volumes and trade counts
    outer: `base, exchange, symbol, bucket, argMinState(o, ts), max(h), min(l), argMaxState(c, close_ts),
      sum(v), sum(qv), sum(bv), sum(n)`,
    groupBy: 'base, exchange, symbol, bucket',
    coverage: { kind: 'candles', level }
  }
  return {
    description: `binance ${level} klines`,
    columns,
    timeColumn: 0,
    time: 'epoch',
    header: 'optional',
    // the ledger first: judged against the same coverage before the candles are written, it marks exactly
    // the buckets this file fills
    targets: [klinesReceipt(target), target]
  }
}

/**
 * Klines go straight into a candle table, past the raw trades and so past the known-at ledger's views: this
 * target notes each written bucket's first hour in the ledger as received now (as `trades`, the rows candles
 * are made of; 0 rows), so a read with `known_by` before the import leaves the imported candles out
 * (engine/asof/known-at.ts: a late hour is read from the raw trades, which klines do not have).
 */
function klinesReceipt(candles: ImportTarget): ImportTarget {
  return {
    table: 'known_at_1h',
    columns: ['tbl', 'bucket', 'first_known', 'last_known', 'rows'],
    inner: candles.inner,
    outer: `'trades' AS tbl, toDateTime(toStartOfHour(ts), 'UTC') AS hour, now64(3), now64(3), toUInt64(0)`,
    groupBy: 'hour',
    coverage: candles.coverage,
    ledger: true
  }
}

const FUNDING_RATE: CsvLayout = {
  description: 'binance fundingRate',
  columns: [
    col('calc_time', 'uint', 'UInt64'),
    col('funding_interval_hours', 'uint', 'UInt8'),
    col('last_funding_rate', 'dec', 'Float64')
  ],
  timeColumn: 0,
  time: 'epoch',
  header: 'optional',
  targets: [
    {
      table: 'funding',
      columns: ['ts', 'exchange', 'symbol', 'base', 'funding_rate', 'interval_hours'],
      inner: `${epochTime('c_calc_time')} AS ts, ${MARKET_SQL}, c_last_funding_rate AS funding_rate,
        c_funding_interval_hours AS interval_hours`,
      coverage: { kind: 'hourly', table: 'funding_1h' }
    }
  ]
}

/** USD-M futures `metrics` (every 5 min): open interest in base and USD, and the global long/short account ratio. */
const METRICS: CsvLayout = {
  description: 'binance metrics',
  columns: [
    col('create_time', 'datetime', 'String'),
    col('symbol', 'word', 'String'),
    col('sum_open_interest', 'udec', 'Nullable(Float64)', true),
    col('sum_open_interest_value', 'udec', 'Nullable(Float64)', true),
    col('count_toptrader_long_short_ratio', 'udec', 'Nullable(Float64)', true),
    col('sum_toptrader_long_short_ratio', 'udec', 'Nullable(Float64)', true),
    col('count_long_short_ratio', 'udec', 'Nullable(Float64)', true),
    col('sum_taker_long_short_vol_ratio', 'udec', 'Nullable(Float64)', true)
  ],
  timeColumn: 0,
  time: 'datetime',
  header: 'optional',
  targets: [
    {
      table: 'open_interest',
      columns: ['ts', 'exchange', 'symbol', 'base', 'oi_base', 'oi_usd'],
      inner: `toDateTime64(c_create_time, 3, 'UTC') AS ts, ${MARKET_SQL},
        assumeNotNull(c_sum_open_interest) * ${MULT} AS oi_base, assumeNotNull(c_sum_open_interest_value) AS oi_usd,
        c_sum_open_interest IS NOT NULL AND c_sum_open_interest_value IS NOT NULL AS present`,
      where: 'present',
      coverage: { kind: 'hourly', table: 'open_interest_1h' }
    },
    {
      table: 'long_short',
      columns: ['ts', 'exchange', 'symbol', 'base', 'long_short_ratio', 'long_account', 'short_account'],
      // ratio r = long accounts / short accounts, so the long share is r / (1 + r)
      inner: `toDateTime64(c_create_time, 3, 'UTC') AS ts, ${MARKET_SQL},
        assumeNotNull(c_count_long_short_ratio) AS long_short_ratio, long_short_ratio / (1 + long_short_ratio) AS long_account,
        1 / (1 + long_short_ratio) AS short_account, c_count_long_short_ratio IS NOT NULL AS present`,
      where: 'present',
      coverage: { kind: 'rows', key: ['exchange', 'symbol'] }
    }
  ]
}

export interface BinanceFile {
  readonly symbol: string
  readonly dataType: string
}

/** The symbol and data type in a data.binance.vision file name, or null when the name is not one. */
export function parseBinanceName(fileName: string): BinanceFile | null {
  const m = NAME.exec(fileName)
  return m ? { symbol: m[1]!, dataType: m[2]! } : null
}

/**
 * The layout and market of a Binance file. `firstLine` tells spot aggTrades (8 columns) from futures (7);
 * klines look the same for spot and futures, so `market` (default perp) decides for them. A perpetual's
 * base asset is converted to the coin as the live normalizer does (`scaledBase`: `1000PEPE` → PEPE × 1000);
 * a spot base is the coin itself (`1000SATS`).
 */
export function binanceLayout(
  label: string,
  file: BinanceFile,
  firstLine: string,
  market: 'perp' | 'spot' | undefined
): { layout: CsvLayout; params: MarketParams } {
  const pair = splitConcatenated(file.symbol)
  if (!pair) throw new ImportError(label, 0, `cannot tell the base and quote assets of symbol ${file.symbol}`)
  let layout: CsvLayout
  let kind = market ?? 'perp'
  const t = file.dataType
  if (t === 'aggTrades') {
    const spot = firstLine.split(',').length === 8
    if (market !== undefined && (market === 'spot') !== spot) {
      throw new ImportError(
        label,
        1,
        `has ${spot ? 8 : 7} columns, the ${spot ? 'spot' : 'futures'} layout, not ${market}`
      )
    }
    kind = spot ? 'spot' : 'perp'
    layout = aggTrades(spot)
  } else if (t === 'fundingRate') layout = FUNDING_RATE
  else if (t === 'metrics') layout = METRICS
  else if (KLINE_LEVELS[t]) layout = klines(KLINE_LEVELS[t])
  else if (/^\d+[smhdwM]$/.test(t)) {
    throw new ImportError(
      label,
      0,
      `klines of interval ${t} have no candle table; import 1m klines (they fill every timeframe)`
    )
  } else
    throw new ImportError(
      label,
      0,
      `data.binance.vision ${t} files are not imported; use aggTrades, klines, fundingRate or metrics`
    )
  const spotMarket = kind === 'spot'
  if (spotMarket && (t === 'fundingRate' || t === 'metrics'))
    throw new ImportError(label, 0, `${t} files are futures data`)
  const coin = spotMarket ? { base: pair.base, multiplier: 1 } : scaledBase(pair.base)
  return {
    layout,
    params: {
      exchange: spotMarket ? 'binance-spot' : 'binance',
      market: kind,
      symbol: file.symbol,
      base: coin.base,
      quote: pair.quote,
      mult: coin.multiplier
    }
  }
}
