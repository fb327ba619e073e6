/**
 * @module
 * `GET /v1/derivatives/screener`: one row per perpetual market of the perpetual venues (catalog/venues.ts) from the live
 * screener state; filters by base asset, exchange and metric; sorted and limited. `symbol` is read by the one
 * symbol resolver (engine/symbols/resolve.ts) against the screener's bases and filters by its base; a
 * TradingView prefix (BINANCE:BTCUSDT.P) acts as `exchange`. With `as_of`, the same rows from the screener book
 * loaded as of then (engine/live/books-load.ts) plus `point_in_time`.
 */
import { perpVenueLabels } from '../../catalog/venues.js'
import type { ScreenerBook, ScreenerRow } from '../../engine/live/screener-book.js'
import { booksAt, SCREENER_ONLY } from '../../engine/live/books-load.js'
import { resolvePointInTime } from '../../engine/asof/point-in-time.js'
import { screenerBases } from '../../engine/symbols/known-bases.js'
import { resolveSymbol, venueOf } from '../../engine/symbols/resolve.js'
import { ScreenerQuery, ScreenerResponse } from '../../schemas/api/derivatives.js'
import type { ServerContext } from '../context.js'
import { json, type Route, type RouteRequest } from '../http/types.js'
import { asOfAnswers } from './as-of.js'

const METRIC_FIELD: Readonly<Record<string, keyof ScreenerRow>> = {
  open_interest: 'open_interest_change_24h',
  funding_rate: 'funding_rate',
  volume: 'volume_change_24h'
}

function compare(field: keyof ScreenerRow, desc: boolean): (a: ScreenerRow, b: ScreenerRow) => number {
  return (a, b) => {
    const x = a[field]
    const y = b[field]
    if (x === null && y === null) return a.symbol < b.symbol ? -1 : 1
    if (x === null) return 1 // nulls last in either order
    if (y === null) return -1
    const c = typeof x === 'string' ? x.localeCompare(y as string) : (x as number) - (y as number)
    return (
      (desc ? -c : c) || (a.exchange < b.exchange ? -1 : a.exchange > b.exchange ? 1 : a.symbol < b.symbol ? -1 : 1)
    )
  }
}

export function derivativesRoutes(ctx: Pick<ServerContext, 'live' | 'store'>): Route[] {
  const known = screenerBases(ctx.live.screener)
  const asOf = asOfAnswers(ctx.store, 'screener', ['trades', 'funding', 'open_interest', 'long_short'])
  /** The screener answer of `book` at `nowMs` for the request's filters, sort and limit. */
  const answer = (
    req: RouteRequest,
    book: ScreenerBook,
    nowMs: number,
    base: string | undefined,
    exchange: string | undefined
  ) => {
    const q = req.q
    let rows = book.rows(nowMs)
    if (base !== undefined) rows = rows.filter((r) => r.base === base)
    if (exchange) rows = rows.filter((r) => r.exchange === exchange)
    const metricField = q['metric'] ? METRIC_FIELD[q['metric'] as string]! : undefined
    if (metricField) rows = rows.filter((r) => r[metricField] !== null)
    const explicitSort = req.query.has('sort')
    const field = (explicitSort || !metricField ? q['sort'] : metricField) as keyof ScreenerRow
    rows.sort(compare(field, q['order'] === 'desc'))
    rows = rows.slice(0, q['limit'] as number)
    const updated = rows.reduce((m, r) => Math.max(m, r.updated), 0)
    return { updated, count: rows.length, rows }
  }
  return [
    {
      method: 'GET',
      path: '/v1/derivatives/screener',
      access: 'key',
      feature: 'screener',
      summary: 'Derivatives screener: OI change, funding, long/short and volume change per perpetual market',
      description: `${perpVenueLabels('and')} USDT perpetuals. Percent fields are in percent; funding is a decimal fraction per interval. Rows without a metric sort last.`,
      tags: ['derivatives'],
      query: ScreenerQuery,
      response: ScreenerResponse,
      handler: (req) => {
        const q = req.q
        const symbol = typeof q['symbol'] === 'string' ? resolveSymbol(q['symbol'], known) : undefined
        const exchange = symbol
          ? venueOf(symbol, q['exchange'] as string | undefined)
          : (q['exchange'] as string | undefined)
        const pit = resolvePointInTime(q, req.plan, Date.now())
        if (pit) {
          const key = { ...q, exchange, symbol: symbol?.base, sorted: req.query.has('sort') }
          return asOf.answer(key, pit, async () => {
            const books = await booksAt(ctx.store, pit, symbol ? [symbol.base] : undefined, SCREENER_ONLY)
            return answer(req, books.screener, pit.asOfMs, symbol?.base, exchange)
          })
        }
        return json(200, answer(req, ctx.live.screener, Date.now(), symbol?.base, exchange))
      }
    }
  ]
}
