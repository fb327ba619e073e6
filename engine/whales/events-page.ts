/**
 * @module
 * One page of GET /v1/whales/events (service spec "Whales"): filters collapsed events and counts raw rows.
 * - total: raw rows (duplicates counted once, see row-order.ts) with ts >= sinceMs, on a selected chain, of the
 *   selected event_type, whose OWN usd_value meets the significance minimum.
 * - distinct: collapsed events with ts >= sinceMs, on a selected chain, whose event significance and event
 *   type match. total − distinct is the collapsed noise; it is >= 0 except in one odd case under an event_type
 *   filter: a route whose largest leg (which sets the event's size) has a type other than its first leg's.
 * - events: the distinct events newest first — ts descending, then id descending (ids are unique: they
 *   end with the wallet address; the address tie-break is kept as a guard) — then offset/limit.
 * That order is total and depends only on each event's ts and id, which never change when newer rows
 * arrive, so stepping offset by limit visits every event once, and events already seen keep their order.
 */
import { ApiError } from '../errors.js'
import { CHAINS, type Chain, type WhaleTransferRecord } from '../records/types.js'
import { sameRow } from './row-order.js'
import {
  atLeast,
  DEFAULT_THRESHOLDS,
  significanceOf,
  type Significance,
  type SignificanceThresholds
} from './significance.js'
import type { WhaleEvent } from './whale-event.js'

/** spec limits of GET /v1/whales/events */
export const PAGE_LIMIT_MAX = 200
export const PAGE_OFFSET_MAX = 10_000

export interface EventsFilter {
  /** chains to include; empty = all 8 (rows on any other chain are never included) */
  readonly chains: readonly Chain[]
  /** window start, epoch ms, inclusive */
  readonly sinceMs: number
  /** minimum significance. @default 'medium' */
  readonly significance?: Significance
  /** only this event type; absent = all */
  readonly eventType?: WhaleTransferRecord['event_type']
  /** must be the thresholds the events were collapsed with. @default DEFAULT_THRESHOLDS */
  readonly thresholds?: SignificanceThresholds
}

export interface EventsPageRequest {
  /** 1..200 */
  readonly limit: number
  /** 0..10000 */
  readonly offset: number
}

export interface EventsPage {
  /** raw rows in the window matching the filters (see module header) */
  readonly total: number
  /** collapsed events matching the filters, over all pages */
  readonly distinct: number
  /** this page's events, newest first */
  readonly events: readonly WhaleEvent[]
}

function checkPage(page: EventsPageRequest): void {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > PAGE_LIMIT_MAX) {
    throw new ApiError('invalid_parameter', `limit must be an integer from 1 to ${PAGE_LIMIT_MAX}`, { param: 'limit' })
  }
  if (!Number.isInteger(page.offset) || page.offset < 0 || page.offset > PAGE_OFFSET_MAX) {
    throw new ApiError('invalid_parameter', `offset must be an integer from 0 to ${PAGE_OFFSET_MAX}`, {
      param: 'offset'
    })
  }
}

/** The newest-first order of the events list; total for events with distinct (id, address). */
export function compareNewestFirst(a: WhaleEvent, b: WhaleEvent): number {
  if (a.ts !== b.ts) return b.ts - a.ts
  if (a.id !== b.id) return a.id < b.id ? 1 : -1
  return a.address < b.address ? 1 : a.address > b.address ? -1 : 0
}

/** Counts raw rows for `total`; O(n). */
function countRows(rows: readonly WhaleTransferRecord[], filter: EventsFilter, chains: ReadonlySet<string>): number {
  const min = filter.significance ?? 'medium'
  const thresholds = filter.thresholds ?? DEFAULT_THRESHOLDS
  // counted rows by tx_hash: a tx has few rows, and this avoids building a key string per row
  const byTx = new Map<string, WhaleTransferRecord[]>()
  let total = 0
  for (const r of rows) {
    if (r.ts < filter.sinceMs || !chains.has(r.chain)) continue
    if (filter.eventType !== undefined && r.event_type !== filter.eventType) continue
    const level = significanceOf(r.usd_value, thresholds)
    if (level === null || !atLeast(level, min)) continue
    const counted = byTx.get(r.tx_hash)
    if (counted === undefined) byTx.set(r.tx_hash, [r])
    else if (counted.some((c) => sameRow(c, r))) continue
    else counted.push(r)
    total += 1
  }
  return total
}

/** One page of events. `events` are the output of collapseEvents over `rows`. Throws ApiError on a bad page. */
export function pageEvents(
  events: readonly WhaleEvent[],
  rows: readonly WhaleTransferRecord[],
  filter: EventsFilter,
  page: EventsPageRequest
): EventsPage {
  checkPage(page)
  const chains = new Set<string>(filter.chains.length === 0 ? CHAINS : filter.chains)
  const min = filter.significance ?? 'medium'
  const matching = events.filter(
    (e) =>
      e.ts >= filter.sinceMs &&
      chains.has(e.chain) &&
      atLeast(e.significance, min) &&
      (filter.eventType === undefined || e.event_type === filter.eventType)
  )
  matching.sort(compareNewestFirst)
  return {
    total: countRows(rows, filter, chains),
    distinct: matching.length,
    events: matching.slice(page.offset, page.offset + page.limit)
  }
}
