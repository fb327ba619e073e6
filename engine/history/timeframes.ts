/**
 * @module
 * The supported OHLCV timeframes (service spec "Historical and backtest"): each is stored in its own
 * candle table (schemas/002_candles.sql) and has a maximum lookback.
 */
import type { Span } from './span.js'

export const TIMEFRAME_NAMES = ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M'] as const
export type TimeframeName = (typeof TIMEFRAME_NAMES)[number]

export interface Timeframe {
  readonly name: TimeframeName
  /** bucket width */
  readonly span: Span
  /** the candle table holding this timeframe */
  readonly table: string
  /** the furthest back a request may reach at this timeframe (spec table) */
  readonly maxLookback: Span
}

const tf = (name: TimeframeName, span: Span, table: string, maxLookback: Span): Timeframe => ({
  name,
  span,
  table,
  maxLookback
})

export const TIMEFRAMES: Readonly<Record<TimeframeName, Timeframe>> = {
  '1m': tf('1m', { n: 1, unit: 'm' }, 'candles_1m', { n: 30, unit: 'd' }),
  '5m': tf('5m', { n: 5, unit: 'm' }, 'candles_5m', { n: 90, unit: 'd' }),
  '15m': tf('15m', { n: 15, unit: 'm' }, 'candles_15m', { n: 180, unit: 'd' }),
  '1h': tf('1h', { n: 1, unit: 'h' }, 'candles_1h', { n: 365, unit: 'd' }),
  '4h': tf('4h', { n: 4, unit: 'h' }, 'candles_4h', { n: 24, unit: 'M' }),
  '1d': tf('1d', { n: 1, unit: 'd' }, 'candles_1d', { n: 24, unit: 'M' }),
  '1w': tf('1w', { n: 1, unit: 'w' }, 'candles_1w', { n: 24, unit: 'M' }),
  '1M': tf('1M', { n: 1, unit: 'M' }, 'candles_1mo', { n: 24, unit: 'M' })
}
