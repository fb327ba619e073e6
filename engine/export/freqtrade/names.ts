/**
 * @module
 * How freqtrade names what the freqtrade layout exports: the CCXT pair of a stored market, its file name
 * per timeframe and candle type, and the directory the file goes in. Sources (freqtrade/freqtrade,
 * docs/export-formats.md "freqtrade layout"): `IDataHandler._pair_data_filename` and `timeframe_to_file`
 * (freqtrade/data/history/datahandlers/idatahandler.py), `misc.pair_to_filename` (freqtrade/misc.py),
 * `CandleType` (freqtrade/enums/candletype.py). Pure.
 */
import { PERP_VENUES, perpVenueIdList } from '../../../catalog/venues.js'
import { ApiError } from '../../errors.js'
import type { Market } from '../../history/markets.js'

/** freqtrade's candle types this layout writes (`CandleType` values: the file name's suffix). */
export type FreqtradeCandleType = 'futures' | 'funding_rate' | 'mark'

/**
 * The timeframes freqtrade (CCXT) can name. Every Tidewatch timeframe is one of them today; the check
 * keeps a future Tidewatch timeframe that freqtrade cannot read from being written under a name it misreads.
 */
export const FREQTRADE_TIMEFRAMES: readonly string[] = [
  '1m',
  '3m',
  '5m',
  '15m',
  '30m',
  '1h',
  '2h',
  '4h',
  '6h',
  '8h',
  '12h',
  '1d',
  '3d',
  '1w',
  '1M'
]

/** The settle currencies of the USD-margined perpetuals the layout can name (CCXT `BASE/QUOTE:SETTLE`). */
const LINEAR_QUOTES = ['USDT', 'USDC'] as const

/**
 * The native market name forms per perpetual venue, `{BASE}` for the base as stored, `{QUOTE}` for USDT or
 * USDC: the catalog's USDT market name with its quote left open (`{BASE}-USDT-SWAP` → `{BASE}-{QUOTE}-SWAP`).
 * Markets whose native name carries a multiplier (`1000PEPEUSDT`: base stored as PEPE, prices per PEPE)
 * match none of them: CCXT names them `1000PEPE/USDT:USDT`, priced per 1,000 PEPE.
 */
const NATIVE_FORMS: Readonly<Record<string, string>> = Object.fromEntries(
  PERP_VENUES.map((v) => [v.id, v.usdtMarket.replace('USDT', '{QUOTE}')])
)

/** 400 for a timeframe freqtrade cannot name. */
export function checkFreqtradeTimeframe(timeframe: string): void {
  if (!FREQTRADE_TIMEFRAMES.includes(timeframe)) {
    throw new ApiError(
      'invalid_parameter',
      `layout=freqtrade cannot write timeframe ${timeframe}: freqtrade (CCXT) names only ${FREQTRADE_TIMEFRAMES.join(', ')}`,
      { param: 'timeframe' }
    )
  }
}

/** A market to export and the CCXT pair freqtrade names it by. */
export interface FreqtradeMarket {
  readonly market: Market
  readonly pair: string
}

/**
 * The CCXT pair freqtrade uses for a stored market (`BTCUSDT` on binance -> `BTC/USDT:USDT`), or a 400
 * saying why freqtrade cannot name it (a spot market, a multiplier name, another quote).
 */
export function freqtradePair(m: Market): string {
  const form = NATIVE_FORMS[m.exchange]
  const refuse = (why: string): never => {
    throw new ApiError('invalid_parameter', `layout=freqtrade cannot name ${m.symbol} on ${m.exchange}: ${why}`, {
      param: 'symbols'
    })
  }
  if (form === undefined) return refuse(`the layout writes USD-margined perpetuals of ${perpVenueIdList('and')}`)
  for (const quote of LINEAR_QUOTES) {
    if (form.replace('{BASE}', m.base).replace('{QUOTE}', quote) === m.symbol) return `${m.base}/${quote}:${quote}`
  }
  return refuse(
    `it is not ${m.base}'s USDT or USDC perpetual as ${m.exchange} writes it (${form.replace('{BASE}', m.base).replace('{QUOTE}', 'USDT')}); ` +
      'markets with a multiplier in the name (1000PEPEUSDT) are stored per coin, while CCXT prices them per 1,000'
  )
}

/** `misc.pair_to_filename`: `/`, space, `.`, `@`, `$`, `+` and `:` become `_`. */
export function pairToFilename(pair: string): string {
  return pair.replace(/[/ .@$+:]/g, '_')
}

/**
 * The path inside the data directory (`user_data/data/<exchange>`) of one file: futures candle types live
 * in `futures/`; the timeframe `1M` is written `1Mo` (case-insensitive file systems).
 * `futures/BTC_USDT_USDT-1h-futures.feather`.
 */
export function freqtradeFilePath(pair: string, timeframe: string, candleType: FreqtradeCandleType): string {
  return `futures/${pairToFilename(pair)}-${timeframe.replace('M', 'Mo')}-${candleType}.feather`
}
