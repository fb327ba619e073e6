/**
 * @module
 * `GET /v1/derivatives/screener`: one row per perpetual market of the perpetual venues (catalog/venues.ts) from the live
 * screener state; filters by base asset, exchange and metric; sorted and limited (engine/live/screener-select.ts).
 * `symbol` is read by the one symbol resolver (engine/symbols/resolve.ts) against the screener's bases and
 * filters by its base; a TradingView prefix (BINANCE:BTCUSDT.P) acts as `exchange`. The live answer comes
 * from the screener's answer cache (engine/live/screener-answers.ts), synchronously. With `as_of`, the same
 * rows from the screener book loaded as of then (engine/live/books-load.ts) plus `point_in_time`.
 */
import { perpVenueLabels } from '../../catalog/venues.js'
import type { ScreenerRow } from '../../engine/live/screener-book.js'
import { screenerAnswersOf, type ScreenerAnswer } from '../../engine/live/screener-answers.js'
import {
  METRIC_FIELD,
  screenerAnswer,
  selectionKey,
  type ScreenerSelection
} from '../../engine/live/screener-select.js'
import { booksAt, SCREENER_ONLY } from '../../engine/live/books-load.js'
import { resolvePointInTime } from '../../engine/asof/point-in-time.js'
import { screenerBases } from '../../engine/symbols/known-bases.js'
import { resolveSymbol, venueOf } from '../../engine/symbols/resolve.js'
import { ScreenerQuery, ScreenerResponse } from '../../schemas/api/derivatives.js'
import type { ServerContext } from '../context.js'
import { JSON_HEADERS, type HttpResponse, type Route, type RouteRequest } from '../http/types.js'
import { asOfAnswers } from './as-of.js'

/** The request's question: its resolved base and venue, the metric's field, the sort in effect. */
function selectionOf(req: RouteRequest, base: string | undefined, exchange: string | undefined): ScreenerSelection {
  const q = req.q
  const metricField = q['metric'] ? METRIC_FIELD[q['metric'] as string]! : null
  // a metric sorts by its own field unless `sort` is given (its default applies without a metric)
  const sort = (req.query.has('sort') || !metricField ? q['sort'] : metricField) as keyof ScreenerRow
  return {
    base: base ?? null,
    exchange: exchange ?? null,
    require: metricField,
    sort,
    desc: q['order'] === 'desc',
    limit: q['limit'] as number
  }
}

export function derivativesRoutes(ctx: Pick<ServerContext, 'live' | 'store'>): Route[] {
  const known = screenerBases(ctx.live.screener)
  const asOf = asOfAnswers(ctx.store, 'screener', ['trades', 'funding', 'open_interest', 'long_short'])
  const answers = screenerAnswersOf(ctx.live.screener)
  /**
   * One response object per cached answer: a hot read returns the same object every time, so the
   * synthetic label (server/app.ts) makes its labelled copy once per answer too.
   */
  const responses = new WeakMap<ScreenerAnswer, HttpResponse>()
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
        const selection = selectionOf(req, symbol?.base, exchange)
        const pit = resolvePointInTime(q, req.plan, Date.now())
        if (pit) {
          return asOf.answer({ selection: selectionKey(selection) }, pit, async () => {
            const books = await booksAt(ctx.store, pit, symbol ? [symbol.base] : undefined, SCREENER_ONLY)
            return screenerAnswer(books.screener, pit.asOfMs, selection)
          })
        }
        const a = answers.get(selection)
        let res = responses.get(a)
        // the answer's bytes, encoded once per answer rather than by the socket on every request
        if (!res) responses.set(a, (res = { status: 200, headers: JSON_HEADERS, body: a.bytes }))
        return res
      }
    }
  ]
}
