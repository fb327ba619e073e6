/**
 * @module
 * Whale endpoints (public) over the live 7-day whale window. Events collapse near-duplicates (multi-hop
 * legs, wash loops; docs/whales.md). Paging: newest first, ties by id; every response carries a
 * `snapshot` token (the window's arrival sequence and the time the listing was made); passing it back
 * makes later pages list exactly the same events however much data arrived since. The summary takes `as_of`:
 * the same summary over the whale transfers (the chain sources write theirs there too) known then.
 */
import { ApiError } from '../../engine/errors.js'
import { CHAINS, type Chain, type WhaleTransferRecord } from '../../engine/records/types.js'
import { collapseEvents, type WhaleEvent } from '../../engine/whales/collapse.js'
import { pageEvents } from '../../engine/whales/events-page.js'
import type { Significance } from '../../engine/whales/significance.js'
import { SUMMARY_WINDOW_MS, whaleSummary, whaleSummaryOf } from '../../engine/whales/summary.js'
import { WHALE_WINDOW_MS } from '../../engine/live/whale-window.js'
import { countWhaleWallets, loadWhales } from '../../engine/live/books-load.js'
import { pitBounds } from '../../engine/live/load-bounds.js'
import { resolvePointInTime } from '../../engine/asof/point-in-time.js'
import { EventsQuery, EventsResponse, SummaryQuery, SummaryResponse } from '../../schemas/api/whales.js'
import type { ServerContext } from '../context.js'
import { json, type Route } from '../http/types.js'
import { asOfAnswers } from './as-of.js'

/** Collapsed listings kept (oldest dropped first): a few snapshots being paged at once. */
const LISTINGS_MAX = 16
/** How long a computed summary is served from cache, ms (it is polled; it changes with new events only). */
const SUMMARY_TTL_MS = 1_000

export function whaleRoutes(ctx: Pick<ServerContext, 'live' | 'store'>): Route[] {
  const window = ctx.live.whales
  const asOf = asOfAnswers(ctx.store, 'whales-summary', ['whale_transfers'])
  // collapsed listings by snapshot and window: paging through one snapshot collapses the rows once
  const listings = new Map<string, { rows: readonly WhaleTransferRecord[]; events: readonly WhaleEvent[] }>()
  let summary: { at: number; seq: number; body: string } | null = null
  return [
    {
      method: 'GET',
      path: '/v1/whales/events',
      access: 'public',
      feature: 'whales',
      summary: 'Whale transfers and swaps on 8 chains, near-duplicates collapsed (repeat_count), newest first',
      description:
        'total = raw rows in the window matching the filters; distinct = collapsed events matching them. Page with offset in steps of limit, passing back the snapshot token of the first page.',
      tags: ['whales'],
      query: EventsQuery,
      response: EventsResponse,
      handler: (req) => {
        const q = req.q
        let seq = window.seq
        // whole seconds: requests within a second share one collapsed listing (see the cache below)
        let now = Math.floor(Date.now() / 1000) * 1000
        if (typeof q['snapshot'] === 'string') {
          const [s, t] = (q['snapshot'] as string).split('-').map(Number) as [number, number]
          if (s > seq || t > now || t < now - WHALE_WINDOW_MS) {
            throw new ApiError('invalid_parameter', 'snapshot is unknown or expired; start again without it', {
              param: 'snapshot'
            })
          }
          seq = s
          now = t
        }
        const sinceMs = now - (q['hours'] as number) * 3_600_000
        const key = `${seq}:${sinceMs}:${now}`
        let listing = listings.get(key)
        if (!listing) {
          const rows = window.since(sinceMs, now, seq)
          listing = { rows, events: collapseEvents(rows) }
          if (listings.size >= LISTINGS_MAX) listings.delete(listings.keys().next().value!)
          listings.set(key, listing)
        }
        const { rows, events } = listing
        const page = pageEvents(
          events,
          rows,
          {
            chains: (q['chain'] as Chain[] | undefined) ?? [],
            sinceMs,
            significance: q['significance'] as Significance,
            ...(q['event_type'] ? { eventType: q['event_type'] as 'transfer_in' | 'transfer_out' | 'swap' } : {})
          },
          { limit: q['limit'] as number, offset: q['offset'] as number }
        )
        return json(200, {
          total: page.total,
          distinct: page.distinct,
          limit: q['limit'],
          offset: q['offset'],
          snapshot: `${seq}-${now}`,
          events: page.events
        })
      }
    },
    {
      method: 'GET',
      path: '/v1/whales/summary',
      access: 'public',
      feature: 'whales',
      summary: 'Whale activity of the last 24 h: counts and volume per chain, net flows, top movers',
      description:
        'Collapsed events at or above the low threshold ($100k). total_whales_tracked counts wallets seen in the last 7 days.',
      tags: ['whales'],
      query: SummaryQuery,
      response: SummaryResponse,
      handler: (req) => {
        const pit = resolvePointInTime(req.q, req.plan, Date.now())
        if (pit) {
          return asOf.answer(req.q, pit, async () => {
            // as of then, with now = as_of: the 24 h window's rows, and the 7 days' wallets counted by the store
            const b = pitBounds(pit)
            const [rows, tracked] = await Promise.all([
              loadWhales(ctx.store, b, SUMMARY_WINDOW_MS),
              countWhaleWallets(ctx.store, b, WHALE_WINDOW_MS, CHAINS)
            ])
            return whaleSummaryOf(rows, tracked, pit.asOfMs)
          })
        }
        const now = Date.now()
        if (!summary || summary.seq !== window.seq || now - summary.at > SUMMARY_TTL_MS) {
          const body = JSON.stringify(whaleSummary(window.since(now - WHALE_WINDOW_MS, now), now))
          summary = { at: now, seq: window.seq, body }
        }
        return { status: 200, headers: { 'content-type': 'application/json' }, body: summary.body }
      }
    }
  ]
}
