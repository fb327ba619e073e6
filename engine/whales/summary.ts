/**
 * @module
 * The whale summary (GET /v1/whales/summary, service spec "Whale summary"): a 24h view over collapsed events.
 * - The 24h window is ts >= nowMs − 24h (no upper bound, as for the events list); the rows of the window are
 *   collapsed with collapseEvents, so every figure counts collapsed events, each once, and events below the
 *   `low` threshold count nowhere. Rows on chains outside CHAINS count nowhere either.
 * - net_flows count transfer_in as inflow and transfer_out as outflow; swaps are in chain_counts only.
 * - Wallets are counted per chain + address (the same hex address on two EVM chains counts twice).
 * - total_whales_tracked counts wallets over ALL rows given (the caller passes 7 days), whatever their size.
 * USD figures are sums of event usd_value in event order, so the same rows always give the same floats.
 */
import { CHAINS, type Chain, type WhaleTransferRecord } from '../records/types.js'
import { collapseEvents, type CollapseOptions } from './collapse.js'
import { DEFAULT_THRESHOLDS, type SignificanceThresholds } from './significance.js'
import type { WhaleEvent } from './whale-event.js'

/** the summary's window */
export const SUMMARY_WINDOW_MS = 24 * 3_600_000
/** top_movers length */
export const TOP_MOVERS = 10
/** |net| below 1% of gross flow reads as neutral: smaller imbalances are within fee and price noise */
export const NEUTRAL_SHARE = 0.01

export interface ChainCount {
  readonly event_count: number
  /** USD */
  readonly volume_usd: number
}

export interface NetFlow {
  /** USD of transfer_in events */
  readonly inflow: number
  /** USD of transfer_out events */
  readonly outflow: number
  /** inflow − outflow, USD */
  readonly net: number
  /** neutral when |net| < 1% of inflow + outflow (and when both are 0) */
  readonly direction: 'inflow' | 'outflow' | 'neutral'
}

export interface TopMover {
  readonly address: string
  readonly chain: string
  /** USD */
  readonly volume_usd_24h: number
  readonly event_count_24h: number
}

export interface WhaleSummary {
  /** every chain of CHAINS, in that order */
  readonly chain_counts: Readonly<Record<Chain, ChainCount>>
  readonly net_flows: Readonly<Record<Chain, NetFlow>>
  /** by volume descending, then event count descending, then chain, then address */
  readonly top_movers: readonly TopMover[]
  /** USD, the chain_counts volumes added up in CHAINS order */
  readonly total_volume_24h: number
  /** chain + address pairs with an event in the window */
  readonly active_wallets: number
  /** chain + address pairs in all rows given */
  readonly total_whales_tracked: number
  /** nowMs as ISO 8601 UTC */
  readonly as_of: string
}

/** mutable accumulator, local to one whaleSummary call */
type MoverAcc = { -readonly [K in keyof TopMover]: TopMover[K] }

/** an object with every chain of CHAINS as a key, in that order */
function byChain<T>(make: (chain: Chain) => T): Record<Chain, T> {
  return Object.fromEntries(CHAINS.map((c) => [c, make(c)])) as Record<Chain, T>
}

function netFlow(inflow: number, outflow: number): NetFlow {
  const net = inflow - outflow
  const neutral = net === 0 || Math.abs(net) < NEUTRAL_SHARE * (inflow + outflow)
  return { inflow, outflow, net, direction: neutral ? 'neutral' : net > 0 ? 'inflow' : 'outflow' }
}

function compareMovers(a: TopMover, b: TopMover): number {
  if (a.volume_usd_24h !== b.volume_usd_24h) return b.volume_usd_24h - a.volume_usd_24h
  if (a.event_count_24h !== b.event_count_24h) return b.event_count_24h - a.event_count_24h
  if (a.chain !== b.chain) return a.chain < b.chain ? -1 : 1
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0
}

/** one entry per chain + address with an event, unsorted */
function movers(events: readonly WhaleEvent[]): TopMover[] {
  const byWallet = new Map<string, MoverAcc>()
  for (const e of events) {
    const key = `${e.chain}\u0000${e.address}`
    const m = byWallet.get(key)
    if (m === undefined) {
      byWallet.set(key, { address: e.address, chain: e.chain, volume_usd_24h: e.usd_value, event_count_24h: 1 })
    } else {
      m.volume_usd_24h += e.usd_value
      m.event_count_24h += 1
    }
  }
  return [...byWallet.values()]
}

/** The 24h whale summary as of nowMs. `rows`: whale-transfer rows of the last 7 days, any order. */
export function whaleSummary(
  rows: readonly WhaleTransferRecord[],
  nowMs: number,
  thresholds: SignificanceThresholds = DEFAULT_THRESHOLDS,
  opts: Omit<CollapseOptions, 'thresholds'> = {}
): WhaleSummary {
  const since = nowMs - SUMMARY_WINDOW_MS
  // addresses per chain: keyed by the rows' own strings, never by a key string built per row
  const tracked = new Map<string, Set<string>>(CHAINS.map((c) => [c, new Set<string>()]))
  const recent: WhaleTransferRecord[] = []
  for (const r of rows) {
    const addresses = tracked.get(r.chain)
    if (addresses === undefined) continue
    addresses.add(r.address)
    if (r.ts >= since) recent.push(r)
  }
  const total = [...tracked.values()].reduce((sum, addresses) => sum + addresses.size, 0)
  return whaleSummaryOf(recent, total, nowMs, thresholds, opts)
}

/**
 * The same summary from the rows of its 24 h window alone (any chain, in event order) and
 * `total_whales_tracked` counted elsewhere (the store counts the 7 days' wallets for an answer as of a
 * moment, so only the window's rows are read).
 */
export function whaleSummaryOf(
  rows: readonly WhaleTransferRecord[],
  totalWhalesTracked: number,
  nowMs: number,
  thresholds: SignificanceThresholds = DEFAULT_THRESHOLDS,
  opts: Omit<CollapseOptions, 'thresholds'> = {}
): WhaleSummary {
  const since = nowMs - SUMMARY_WINDOW_MS
  const chains = new Set<string>(CHAINS)
  const recent = rows.filter((r) => r.ts >= since && chains.has(r.chain))
  const events = collapseEvents(recent, { ...opts, thresholds })
  const counts = byChain(() => ({ event_count: 0, volume_usd: 0 }))
  const flows = byChain(() => ({ inflow: 0, outflow: 0 }))
  for (const e of events) {
    const chain = e.chain as Chain
    counts[chain].event_count += 1
    counts[chain].volume_usd += e.usd_value
    if (e.event_type === 'transfer_in') flows[chain].inflow += e.usd_value
    else if (e.event_type === 'transfer_out') flows[chain].outflow += e.usd_value
  }
  const wallets = movers(events)
  return {
    chain_counts: counts,
    net_flows: byChain((c) => netFlow(flows[c].inflow, flows[c].outflow)),
    top_movers: wallets.sort(compareMovers).slice(0, TOP_MOVERS),
    total_volume_24h: CHAINS.reduce((sum, c) => sum + counts[c].volume_usd, 0),
    active_wallets: wallets.length,
    total_whales_tracked: totalWhalesTracked,
    as_of: new Date(nowMs).toISOString()
  }
}
