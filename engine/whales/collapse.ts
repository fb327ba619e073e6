/**
 * @module
 * Collapses whale-transfer rows into whale events (service spec: "near-duplicate rows (multi-hop routes, wash
 * loops) are collapsed into one event carrying a repeat_count"). Rules, in the order they apply:
 *
 * 1. Duplicates: rows with the same chain + tx_hash + log_index + address are one row (the first in row order).
 * 2. Multi-hop: rows with the same chain + tx_hash + address are legs of one route and become one unit.
 *    usd_value is the largest leg's (the legs move the same money, so a sum would double count);
 *    event_type, token, counterparty come from the first leg (in row order: the lowest log_index, as the legs of one tx share
 *    ts); amount is that of the
 *    largest leg in the first leg's token, so `amount` is always in units of `token`.
 * 3. Wash loop: units of one chain + address + token (token of the unit's first leg) that alternate
 *    transfer_out / transfer_in (either first), each within ±washTolerance of the first unit's usd_value
 *    (inclusive) and each starting at most washWindowMs after the previous one ended (inclusive), fold into
 *    one event: usd_value and amount of the first unit, repeat_count = all rows of all units. A unit holding
 *    any swap row is never part of a wash loop. Loops grow greedily in row order: a unit that does not fit
 *    the open loop of its key starts the next one.
 * 4. Anything else is one event with repeat_count 1.
 *
 * An event's id, ts, chain, address, tx_hash and block_number are those of its first row, and rows only ever
 * join the end of a loop, so rows newer than all others can extend an event but never change its id or ts.
 * Events whose usd_value is below the `low` threshold are dropped after collapsing.
 * Deterministic for any input order (rows are sorted first, see row-order.ts); O(n log n) for the sort, then one
 * pass over rows and one over routes, each scanning only the few routes of one tx or open loops of one wallet.
 * About 20 ms for 20k rows (7 days) on a loaded 2-core machine (test/unit/whales-timing.test.ts prints it).
 */
import type { WhaleTransferRecord } from '../records/types.js'
import { orderedRows, sameRow } from './row-order.js'
import { checkThresholds, DEFAULT_THRESHOLDS, significanceOf, type SignificanceThresholds } from './significance.js'
import type { WhaleEvent } from './whale-event.js'
import { chainDetailOf, chainEventId, type ChainEventDetail } from './chain-details.js'
import { decimalsUnknownOf } from './tx-events.js'

export type { CollapseKind, WhaleEvent } from './whale-event.js'

/** 10 minutes: a round trip slower than that is plausibly two real decisions, not noise */
export const DEFAULT_WASH_WINDOW_MS = 10 * 60_000
/** ±5% of the first leg: room for fees and price drift across a round trip */
export const DEFAULT_WASH_TOLERANCE = 0.05

export interface CollapseOptions {
  /** @default DEFAULT_THRESHOLDS */
  readonly thresholds?: SignificanceThresholds
  /** largest gap between one wash-loop leg and the next, ms, inclusive. @default 600_000 */
  readonly washWindowMs?: number
  /** largest relative difference of a wash-loop leg's usd_value from the first leg's, inclusive. @default 0.05 */
  readonly washTolerance?: number
}

/** the legs of one route (one chain + tx_hash + address); mutable while rows are grouped */
interface Route {
  readonly first: WhaleTransferRecord
  /** leg with the largest usd_value (the earliest on a tie) */
  largest: WhaleTransferRecord
  /** leg with the largest usd_value among legs in the first leg's token */
  largestInToken: WhaleTransferRecord
  /** every leg after the first, to drop a row seen twice; null while there is one leg (the common case) */
  more: WhaleTransferRecord[] | null
  legs: number
  lastTs: number
  hasSwap: boolean
  /** next route of the same tx_hash (another chain or wallet) */
  next: Route | null
}

/**
 * Groups ordered rows into routes, dropping repeated rows; routes come out in the order of their first rows.
 * Maps are keyed by the rows' own strings, then short lists are scanned: building a composite key string per
 * row (allocation, then hashing a fresh string) measured as slow as the rest of the pass together.
 */
function groupRoutes(ordered: readonly WhaleTransferRecord[]): Route[] {
  const byTx = new Map<string, Route>()
  const routes: Route[] = []
  for (const r of ordered) {
    const head = byTx.get(r.tx_hash)
    let route = head
    while (route !== undefined && (route.first.address !== r.address || route.first.chain !== r.chain)) {
      route = route.next ?? undefined
    }
    if (route === undefined) {
      const created: Route = {
        first: r,
        largest: r,
        largestInToken: r,
        more: null,
        legs: 1,
        lastTs: r.ts,
        hasSwap: r.event_type === 'swap',
        next: head ?? null
      }
      byTx.set(r.tx_hash, created)
      routes.push(created)
      continue
    }
    if (sameRow(route.first, r) || route.more?.some((leg) => sameRow(leg, r))) continue
    if (route.more === null) route.more = [r]
    else route.more.push(r)
    route.legs += 1
    route.lastTs = Math.max(route.lastTs, r.ts)
    route.hasSwap ||= r.event_type === 'swap'
    if (r.usd_value > route.largest.usd_value) route.largest = r
    if (r.token === route.first.token && r.usd_value > route.largestInToken.usd_value) route.largestInToken = r
  }
  return routes
}

/** the wash loop still open for one chain + address + token; reset in place when the next loop starts */
interface OpenLoop {
  routes: Route[]
  first: WhaleTransferRecord
  firstUsd: number
  lastType: WhaleTransferRecord['event_type']
  lastTs: number
  /** next open loop of the same address (another chain or token) */
  next: OpenLoop | null
}

/** Folds routes into wash loops; returns groups of routes (usually one each) in the order of their first routes. */
function foldWashLoops(routes: readonly Route[], windowMs: number, tolerance: number): Route[][] {
  const open = new Map<string, OpenLoop>()
  const groups: Route[][] = []
  for (const route of routes) {
    if (route.hasSwap) {
      groups.push([route])
      continue
    }
    const leg = route.first
    const head = open.get(leg.address)
    let loop = head
    while (loop !== undefined && (loop.first.token !== leg.token || loop.first.chain !== leg.chain)) {
      loop = loop.next ?? undefined
    }
    const usd = route.largest.usd_value
    if (
      loop !== undefined &&
      leg.event_type !== loop.lastType &&
      Math.abs(usd - loop.firstUsd) <= tolerance * loop.firstUsd &&
      leg.ts - loop.lastTs <= windowMs
    ) {
      loop.routes.push(route)
      loop.lastType = leg.event_type
      loop.lastTs = route.lastTs
      continue
    }
    if (loop === undefined) {
      loop = { routes: [], first: leg, firstUsd: usd, lastType: leg.event_type, lastTs: 0, next: head ?? null }
      open.set(leg.address, loop)
    }
    loop.routes = [route]
    loop.first = leg
    loop.firstUsd = usd
    loop.lastType = leg.event_type
    loop.lastTs = route.lastTs
    groups.push(loop.routes)
  }
  return groups
}

function toEvent(group: readonly Route[], thresholds: SignificanceThresholds): WhaleEvent | null {
  const route = group[0]
  if (route === undefined) return null
  const usd = route.largest.usd_value
  const significance = significanceOf(usd, thresholds)
  if (significance === null) return null
  const first = route.first
  const id = chainEventId(first)
  // a chain-derived row is already one transaction's event: its raw legs count as its rows
  let detail: ChainEventDetail | undefined
  let rows = 0
  let lastTs = first.ts
  for (const r of group) {
    const d =
      r.legs === 1 ? chainDetailOf(r.first.chain, r.first.tx_hash, r.first.log_index, r.first.address) : undefined
    if (r === route) detail = d
    rows += d?.repeat_count ?? r.legs
    lastTs = Math.max(lastTs, r.lastTs)
  }
  const event: WhaleEvent = {
    id,
    ts: first.ts,
    last_ts: lastTs,
    chain: first.chain,
    address: first.address,
    counterparty: first.counterparty,
    event_type: first.event_type,
    token: first.token,
    amount: route.largestInToken.amount,
    usd_value: usd,
    significance,
    tx_hash: first.tx_hash,
    block_number: first.block_number,
    repeat_count: rows,
    collapsed: group.length > 1 ? 'wash_loop' : route.legs > 1 || rows > 1 ? 'multi_hop' : null
  }
  if (detail === undefined) return event
  return {
    ...event,
    hops: detail.hops,
    pools: detail.pools,
    token_in: detail.token_in,
    amount_in: detail.amount_in,
    decimals_unknown: decimalsUnknownOf(event.token, detail.token_in),
    price_source: detail.price_source,
    label: detail.label,
    internal: detail.internal
  }
}

function checkOptions(windowMs: number, tolerance: number): void {
  if (!(windowMs >= 0) || !Number.isFinite(windowMs)) {
    throw new RangeError(`washWindowMs must be a finite number >= 0, got ${windowMs}`)
  }
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new RangeError(`washTolerance must be a finite number >= 0, got ${tolerance}`)
  }
}

/**
 * Whale events from whale-transfer rows (any order), ascending by ts (the order of their first rows).
 * Collapse the rows of the window being shown: a loop that started before them is cut where they begin.
 */
export function collapseEvents(rows: readonly WhaleTransferRecord[], opts: CollapseOptions = {}): WhaleEvent[] {
  const thresholds = opts.thresholds ?? DEFAULT_THRESHOLDS
  const windowMs = opts.washWindowMs ?? DEFAULT_WASH_WINDOW_MS
  const tolerance = opts.washTolerance ?? DEFAULT_WASH_TOLERANCE
  checkThresholds(thresholds)
  checkOptions(windowMs, tolerance)
  const groups = foldWashLoops(groupRoutes(orderedRows(rows)), windowMs, tolerance)
  const events: WhaleEvent[] = []
  for (const group of groups) {
    const event = toEvent(group, thresholds)
    if (event !== null) events.push(event)
  }
  return events
}
