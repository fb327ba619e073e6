/**
 * A Binance normalizer with the fixture markets discovered (binance-fixtures.ts), and one message through it,
 * for the normalizer's unit tests. `T`: the fixtures' clock, ms.
 */
import type { NormalizedRecord } from '../../../engine/records/types.js'
import { BinanceNormalizer } from '../../../ingest/normalize/binance.js'
import { EXCHANGE_INFO, FUNDING_INFO } from './binance-fixtures.js'

export const T = 1732270000000

export function setup(): { n: BinanceNormalizer; gaps: [string, number, number][] } {
  const gaps: [string, number, number][] = []
  const n = new BinanceNormalizer((s, a, b) => gaps.push([s, a, b]))
  n.normalize('/fapi/v1/exchangeInfo', EXCHANGE_INFO, T, [])
  n.normalize('/fapi/v1/fundingInfo', FUNDING_INFO, T, [])
  return { n, gaps }
}

export function run(
  n: BinanceNormalizer,
  channel: string,
  msg: unknown
): { outcome: string; records: NormalizedRecord[] } {
  const records: NormalizedRecord[] = []
  const outcome = n.normalize(channel, msg, T, records)
  return { outcome, records }
}

export const ws = (stream: string, data: unknown) => ({ stream, data })
