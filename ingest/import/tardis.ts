/**
 * @module
 * Tardis.dev downloadable CSV files (`<exchange>_<type>_<date>_<symbol>.csv.gz` or the datasets API's
 * `.../<type>/YYYY/MM/DD/<symbol>.csv.gz`): `trades`, `derivative_ticker` and `options_chain`. The header
 * is required and tells the type. All times are µs since the epoch (stored as ms, truncated); every row
 * names its exchange and symbol. Units (docs.tardis.dev/downloadable-csv-files/data-types):
 * - trades: `amount` in base units, `side` the taker side.
 * - derivative_ticker: `funding_rate` a fraction per interval; the interval is not in the file, so it is
 *   inferred per market from the steps of `funding_timestamp` (funding-interval.ts; 8 h when the file
 *   shows fewer than two distinct funding times); `open_interest` in base units for linear contracts
 *   (USDT/USDC quoted), in USD for inverse ones (quote USD, e.g. Deribit BTC-PERPETUAL); empty cells are
 *   values the exchange did not provide.
 * - options_chain (Deribit): prices in the base coin, IVs in percent, OI in contracts; no volume column,
 *   so `volume_24h` is stored as 0.
 * Multiplier perpetuals (binance-futures and bybit `1000PEPEUSDT`, bybit `SHIB1000USDT`) quote prices per
 * `mult` coins and sizes in units of `mult` coins (market.ts `mk_mult`, 1 elsewhere): every price
 * (trade price, last/index/mark price) is divided by it and every base size (trade amount, linear open
 * interest) multiplied by it, so rows match the live feed's (base PEPE, price per PEPE, size in PEPE).
 * OKX swaps and futures count sizes in contracts whose value the file does not give (`mk_contracts`):
 * their trades are refused (plan-file.ts) and their open interest is not stored.
 */
import type { CsvColumn, CsvLayout } from './csv-layout.js'
import { contractsLookup, fundingIntervalLookup, marketLookup, multiplierLookup } from './market.js'

const col = (name: string, check: CsvColumn['check'], chType: string, optional = false): CsvColumn => ({
  name,
  check,
  chType,
  optional
})
const opt = (name: string, check: CsvColumn['check'] = 'udec'): CsvColumn => col(name, check, 'Nullable(Float64)', true)

const HEAD = [
  col('exchange', 'word', 'String'),
  col('symbol', 'word', 'String'),
  col('timestamp', 'uint', 'UInt64'),
  col('local_timestamp', 'uint', 'UInt64')
]
const MICROS = `fromUnixTimestamp64Milli(toInt64(intDiv(c_timestamp, 1000)), 'UTC')`
const MARKET_SQL = `${marketLookup('mk_base')} AS base, ${marketLookup('mk_exchange')} AS exchange, c_symbol AS symbol`
/** the row market's multiplier as column `mult` (coins per unit of the file's prices and base sizes) */
const MULT_SQL = `${multiplierLookup()} AS mult`

const TRADES: CsvLayout = {
  description: 'tardis trades',
  columns: [...HEAD, col('id', 'any', 'String'), col('side', 'side', 'String'), col('price', 'udec', 'Float64')].concat(
    [col('amount', 'udec', 'Float64')]
  ),
  timeColumn: 2,
  time: 'micros',
  header: 'required',
  marketColumns: { exchange: 0, symbol: 1 },
  targets: [
    {
      table: 'trades',
      columns: ['ts', 'exchange', 'market', 'symbol', 'base', 'quote', 'side', 'price', 'qty', 'trade_id'],
      inner: `${MICROS} AS ts, ${MARKET_SQL}, ${marketLookup('mk_market')} AS market, ${marketLookup('mk_quote')} AS quote,
        lower(c_side) AS side, ${MULT_SQL}, c_price / mult AS price, c_amount * mult AS qty,
        if(c_id = '', toString(c_timestamp), c_id) AS trade_id`,
      coverage: { kind: 'candles', level: '1m' }
    }
  ]
}

const DERIVATIVE_TICKER: CsvLayout = {
  description: 'tardis derivative_ticker',
  columns: [
    ...HEAD,
    col('funding_timestamp', 'uint', 'Nullable(UInt64)', true),
    opt('funding_rate', 'dec'),
    opt('predicted_funding_rate', 'dec'),
    opt('open_interest'),
    opt('last_price'),
    opt('index_price'),
    opt('mark_price')
  ],
  timeColumn: 2,
  time: 'micros',
  header: 'required',
  marketColumns: { exchange: 0, symbol: 1 },
  fundingTimeColumn: 4,
  targets: [
    {
      table: 'funding',
      columns: ['ts', 'exchange', 'symbol', 'base', 'funding_rate', 'interval_hours'].concat([
        'next_funding_ts',
        'mark_price',
        'index_price'
      ]),
      inner: `${MICROS} AS ts, ${MARKET_SQL}, assumeNotNull(c_funding_rate) AS funding_rate,
        ${fundingIntervalLookup()} AS interval_hours,
        if(c_funding_timestamp IS NULL, NULL, fromUnixTimestamp64Milli(toInt64(intDiv(assumeNotNull(c_funding_timestamp), 1000)), 'UTC')) AS next_funding_ts,
        ${MULT_SQL}, c_mark_price / mult AS mark_price, c_index_price / mult AS index_price,
        c_funding_rate IS NOT NULL AS present`,
      where: 'present',
      coverage: { kind: 'hourly', table: 'funding_1h' }
    },
    {
      table: 'open_interest',
      columns: ['ts', 'exchange', 'symbol', 'base', 'oi_base', 'oi_usd'],
      // inverse contracts (quote USD) count OI in USD; linear ones in units of `mult` base coins, priced per
      // unit (so OI × raw price is USD); OKX OI is in contracts of unknown value and is skipped
      inner: `${MICROS} AS ts, ${MARKET_SQL}, ${marketLookup('mk_quote')} = 'USD' AS inverse, ${MULT_SQL},
        assumeNotNull(coalesce(c_mark_price, c_last_price, c_index_price)) AS px, assumeNotNull(c_open_interest) AS oi,
        if(inverse, oi / px, oi * mult) AS oi_base, if(inverse, oi, oi * px) AS oi_usd,
        c_open_interest IS NOT NULL AND coalesce(c_mark_price, c_last_price, c_index_price) > 0
          AND NOT ${contractsLookup()} AS present`,
      where: 'present',
      coverage: { kind: 'hourly', table: 'open_interest_1h' }
    }
  ]
}

const OPTIONS_CHAIN: CsvLayout = {
  description: 'tardis options_chain',
  columns: [
    ...HEAD,
    col('type', 'word', 'String'),
    col('strike_price', 'udec', 'Float64'),
    col('expiration', 'uint', 'UInt64'),
    ...['open_interest', 'last_price', 'bid_price', 'bid_amount', 'bid_iv', 'ask_price', 'ask_amount', 'ask_iv']
      .concat(['mark_price', 'mark_iv'])
      .map((n) => opt(n)),
    col('underlying_index', 'any', 'String'),
    opt('underlying_price'),
    ...['delta', 'gamma', 'vega', 'theta', 'rho'].map((n) => opt(n, 'dec'))
  ],
  timeColumn: 2,
  time: 'micros',
  header: 'required',
  marketColumns: { exchange: 0, symbol: 1 },
  targets: [
    {
      table: 'option_quotes',
      columns: ['ts', 'exchange', 'instrument', 'underlying_price', 'mark_price', 'mark_iv', 'open_interest'].concat([
        'volume_24h',
        'bid',
        'ask'
      ]),
      inner: `${MICROS} AS ts, c_exchange AS exchange, c_symbol AS instrument,
        assumeNotNull(c_underlying_price) AS underlying_price, assumeNotNull(c_mark_price) AS mark_price,
        c_mark_iv AS mark_iv, coalesce(c_open_interest, 0) AS open_interest, 0 AS volume_24h,
        c_bid_price AS bid, c_ask_price AS ask, c_underlying_price IS NOT NULL AND c_mark_price IS NOT NULL AS present`,
      where: 'present',
      coverage: { kind: 'rows', key: ['exchange', 'instrument'] }
    }
  ]
}

const LAYOUTS = [TRADES, DERIVATIVE_TICKER, OPTIONS_CHAIN]

/** The Tardis layout whose header is `firstLine`, or null. */
export function tardisLayout(firstLine: string): CsvLayout | null {
  const header = firstLine.replace(/^\uFEFF/, '').replace(/\r$/, '')
  return LAYOUTS.find((l) => l.columns.map((c) => c.name).join(',') === header) ?? null
}

/** True when the first line looks like a Tardis header (every Tardis file starts `exchange,symbol,`). */
export function looksLikeTardis(firstLine: string): boolean {
  return firstLine.replace(/^\uFEFF/, '').startsWith('exchange,symbol,timestamp,local_timestamp,')
}
