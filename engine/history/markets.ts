/**
 * @module
 * Which perpetual markets have history, and how a request's `symbol` names one. A symbol is an exact
 * exchange-native market name (`BTCUSDT`, `BTC-USDT-SWAP`, an imported spot market), which picks that market
 * (and must agree with `exchange` if given), or any form the one symbol resolver reads (engine/symbols/
 * resolve.ts: `BTC`, `btc`, `BTC/USDT:USDT`, `BINANCE:BTCUSDT.P`, `1000PEPEUSDT`, ...), which names a base
 * asset: its market on `exchange` (or on the venue of a TradingView prefix), or by default on the first of
 * binance, bybit, okx that lists it. Other quotes (ETH/BTC) are 400 invalid_parameter; an unknown base is 400
 * unknown_symbol suggesting the nearest bases with history. The list comes from the daily candle and funding
 * tables, refreshed at most every 30 s.
 */
import { ApiError } from '../errors.js'
import type { Store } from '../store/store.js'
import { PERP_EXCHANGES } from '../records/types.js'
import { basesOf } from '../symbols/known-bases.js'
import { baseCandidates, resolveSymbol, symbolOf, venueOf } from '../symbols/resolve.js'

export interface Market {
  readonly base: string
  readonly exchange: string
  readonly symbol: string
}

/** Order in which a base asset's market is chosen when no exchange is named. */
export const DEFAULT_EXCHANGE_ORDER: readonly string[] = PERP_EXCHANGES

const REFRESH_MS = 30_000

/** Message of a symbol with no history (suggestions follow it). */
const noHistory = (base: string): string => `no history for ${base}: not a base asset or market symbol we hold`

/**
 * The base asset a symbol names, without looking at what is held (`BTC/USDT:USDT`, `BINANCE:BTCUSDT.P`,
 * `btc` -> `BTC`; `1000PEPEUSDT` -> `PEPE`); throws 400 invalid_parameter for a refused form (ETH/BTC).
 */
export function baseOf(symbol: string, param = 'symbol'): string {
  return symbolOf(symbol, param).base
}

export class MarketDirectory {
  private markets: readonly Market[] = []
  private loadedAt = -Infinity
  private loading: Promise<void> | null = null

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now
  ) {}

  /** Forgets the cached list (after bulk loads). */
  invalidate(): void {
    this.loadedAt = -Infinity
  }

  async list(): Promise<readonly Market[]> {
    if (this.now() - this.loadedAt > REFRESH_MS) {
      this.loading ??= this.load().finally(() => (this.loading = null))
      await this.loading
    }
    return this.markets
  }

  private async load(): Promise<void> {
    const rows = await this.store.query<Market>(
      `SELECT DISTINCT base, exchange, symbol FROM (
         SELECT base, exchange, symbol FROM candles_1d UNION ALL SELECT base, exchange, symbol FROM funding_1d
       ) ORDER BY base, exchange, symbol`
    )
    this.markets = rows
    this.loadedAt = this.now()
  }

  /** Every market of a base asset as stored (`BTC`, `PEPE`; not a symbol to resolve), on any exchange or `exchange`. */
  async marketsOf(base: string, exchange?: string): Promise<Market[]> {
    const b = base.trim().toUpperCase()
    return (await this.list()).filter((m) => m.base === b && (exchange === undefined || m.exchange === exchange))
  }

  /**
   * The market a `symbol` parameter names; 400 `unknown_symbol` when none has history.
   * @param param the parameter's name, for the message
   */
  async resolve(symbol: string, exchange: string | undefined, param = 'symbol'): Promise<Market> {
    const all = await this.list()
    try {
      return this.pick(all, symbol, exchange, param)
    } catch (err) {
      // a market first written since the list was loaded: look that one name up (a refused form stays refused)
      if (!(err instanceof ApiError) || err.code !== 'unknown_symbol') throw err
      const fresh = await this.lookup(symbol)
      if (fresh.length === 0) throw err
      this.markets = [
        ...all,
        ...fresh.filter((f) => !all.some((m) => m.exchange === f.exchange && m.symbol === f.symbol))
      ]
      return this.pick(this.markets, symbol, exchange, param)
    }
  }

  private lookup(symbol: string): Promise<Market[]> {
    const where = 'base IN {bases:Array(String)} OR upper(symbol) = {symbol:String}'
    return this.store.query<Market>(
      `SELECT DISTINCT base, exchange, symbol FROM (
         SELECT base, exchange, symbol FROM candles_1d WHERE ${where}
         UNION ALL SELECT base, exchange, symbol FROM funding_1d WHERE ${where}
       ) ORDER BY base, exchange, symbol`,
      { bases: baseCandidates(symbol), symbol: symbol.trim().toUpperCase() }
    )
  }

  /**
   * The markets a list of symbols names, each once, in order. A base asset names its default market, or with
   * `everyVenue` every venue's market of it (only `exchange`'s, or a TradingView prefix's, when given); a
   * native name names itself.
   * `check` sees each resolved base asset (the caller's plan check).
   */
  async resolveList(
    symbols: readonly string[],
    exchange: string | undefined,
    opts: { readonly param: string; readonly everyVenue: boolean; readonly check?: (base: string) => void }
  ): Promise<Market[]> {
    const out: Market[] = []
    for (const s of symbols) {
      const resolved = await this.resolve(s, exchange, opts.param)
      opts.check?.(resolved.base)
      const named = !opts.everyVenue || resolved.symbol.toUpperCase() === s.trim().toUpperCase()
      const venue = named ? exchange : venueOf(symbolOf(s, opts.param), exchange, opts.param)
      for (const m of named ? [resolved] : await this.marketsOf(resolved.base, venue)) {
        if (!out.some((x) => x.exchange === m.exchange && x.symbol === m.symbol)) out.push(m)
      }
    }
    return out
  }

  private pick(all: readonly Market[], symbol: string, exchange: string | undefined, param: string): Market {
    const upper = symbol.trim().toUpperCase()
    const native = all.filter((m) => m.symbol.toUpperCase() === upper)
    if (native.length > 0) {
      const hit = exchange ? native.find((m) => m.exchange === exchange) : native[0]
      if (hit) return hit
      throw new ApiError('unknown_symbol', `${symbol} is not a market on ${exchange}`, { param })
    }
    const parsed = resolveSymbol(symbol, basesOf(all), param, noHistory)
    const base = parsed.base
    const venue = venueOf(parsed, exchange, param)
    const ofBase = all.filter((m) => m.base === base)
    const order = venue ? [venue] : DEFAULT_EXCHANGE_ORDER
    for (const ex of order) {
      const hit = ofBase.find((m) => m.exchange === ex)
      if (hit) return hit
    }
    if (venue) {
      throw new ApiError(
        'unknown_symbol',
        `${base} has no market on ${venue}; it trades on ${[...new Set(ofBase.map((m) => m.exchange))].join(', ')}`,
        { param }
      )
    }
    // only markets of other kinds (an imported spot market) hold this base
    throw new ApiError('unknown_symbol', noHistory(base), { param })
  }
}

/** SQL condition selecting rows of `markets` (params `ex`, `sym`: parallel arrays), and its params. */
export function marketsCondition(markets: readonly Market[]): {
  readonly sql: string
  readonly params: { readonly ex: string[]; readonly sym: string[] }
} {
  return {
    sql: `(exchange, symbol) IN (SELECT tupleElement(m, 1), tupleElement(m, 2) FROM (SELECT arrayJoin(arrayZip({ex:Array(String)}, {sym:Array(String)})) AS m))`,
    params: { ex: markets.map((m) => m.exchange), sym: markets.map((m) => m.symbol) }
  }
}
