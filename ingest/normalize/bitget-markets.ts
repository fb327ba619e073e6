/**
 * @module
 * Bitget USDT-margined perpetual discovery and per-market units, from the unified (UTA, v3) instrument list
 * `GET /api/v3/market/instruments?category=USDT-FUTURES`: `{code:"00000", data:[{symbol, baseCoin,
 * quoteCoin, symbolType, status, fundInterval, ...}]}`, every field a string, no paging. The adapter follows
 * the perpetuals (`symbolType` perpetual) quoted in USDT whose `status` lets them trade: `online`, and
 * `limit_open`/`limit_close` (positions may only be closed, or only opened, but the market trades);
 * `listed` (not yet trading), `offline` (delisted) and `restrictedAPI` are left out. `fundInterval` is in
 * hours (`8`; `4` and `1` exist). A low-priced coin quoted per 1,000 coins carries the multiplier in
 * `baseCoin` (`1000SATS`), read by the shared rule (engine/symbols/multiplier.ts).
 */
import { DEFAULT_FUNDING_INTERVAL_HOURS } from '../../engine/records/types.js'
import { multiplierBase } from '../../engine/symbols/multiplier.js'
import type { MarketMeta } from './binance-markets.js'

export type { MarketMeta } from './binance-markets.js'

const QUOTE = 'USDT'
/** `code` of every successful Bitget REST answer */
export const BITGET_OK = '00000'
/** instrument statuses whose market trades */
const TRADING = new Set(['online', 'limit_open', 'limit_close'])

/** A followed market: meta plus its funding interval. */
export interface BitgetMarket extends MarketMeta {
  /** hours between settlements (instrument `fundInterval`) */
  readonly intervalHours: number
}

interface Instrument {
  symbol?: unknown
  baseCoin?: unknown
  quoteCoin?: unknown
  symbolType?: unknown
  status?: unknown
  fundInterval?: unknown
}

/** Market meta from the symbol alone, for symbols the instrument list has not described (a replay of a later hour). */
export function guessBitgetMarket(symbol: string): MarketMeta {
  const baseCoin = symbol.endsWith(QUOTE) && symbol.length > QUOTE.length ? symbol.slice(0, -QUOTE.length) : symbol
  return { symbol, quote: QUOTE, ...multiplierBase(baseCoin) }
}

/** Funding interval in hours from `fundInterval`; null when absent or not a whole 1..24. */
export function fundIntervalHours(v: unknown): number | null {
  const h = typeof v === 'string' && v !== '' ? Number(v) : typeof v === 'number' ? v : Number.NaN
  return Number.isInteger(h) && h > 0 && h <= 24 ? h : null
}

/** The trading USDT perpetuals of an instruments answer; null when the answer is not a successful one. */
export function usdtPerpetuals(body: unknown): BitgetMarket[] | null {
  const b = body as { code?: unknown; data?: unknown } | null
  if (b?.code !== BITGET_OK || !Array.isArray(b.data)) return null
  const markets: BitgetMarket[] = []
  for (const i of b.data as (Instrument | null)[]) {
    if (i === null || typeof i !== 'object') continue
    if (typeof i.symbol !== 'string' || typeof i.baseCoin !== 'string' || i.quoteCoin !== QUOTE) continue
    if (i.symbolType !== 'perpetual' || typeof i.status !== 'string' || !TRADING.has(i.status)) continue
    markets.push({
      symbol: i.symbol,
      quote: QUOTE,
      ...multiplierBase(i.baseCoin),
      intervalHours: fundIntervalHours(i.fundInterval) ?? DEFAULT_FUNDING_INTERVAL_HOURS
    })
  }
  return markets
}
