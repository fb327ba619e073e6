/**
 * @module
 * What a chain-derived whale event knows beyond its whale_transfers row (hops, pools, the asset given, the
 * raw legs folded, the price source, the watch-list label), by event id (`chain:tx_hash:log_index:address`,
 * the id GET /v1/whales/events gives the event), so the read API shows them (collapse.ts adds them to the
 * event). Filled by the chain sources as they confirm events, and at their start from chain_whale_events
 * (the 7-day whale window). Bounded: beyond MAX_DETAILS the oldest entries are dropped and counted; an event
 * without its entry is served as before, without the extra fields.
 */
import type { Store } from '../store/store.js'
import type { ChainWhaleEvent } from './tx-events.js'

/** entries kept at most (the whale window holds at most 500,000 rows) */
export const MAX_DETAILS = 500_000

export interface ChainEventDetail {
  /** raw legs folded into the event (transfer logs, the coin value, unwraps) */
  readonly repeat_count: number
  /** Swap logs of the transaction (swaps only; 0 for transfers) */
  readonly hops: number
  /** distinct pools of those Swap logs */
  readonly pools: readonly string[]
  /** swaps: the asset given and its amount */
  readonly token_in: string | null
  readonly amount_in: number | null
  /** where usd_value comes from: `stablecoin`, `candles_1m:<exchanges>` */
  readonly price_source: string | null
  /** the wallet's watch-list label */
  readonly label: string | null
  /** a transfer between two wallets of one owner (left out of exchange flows) */
  readonly internal: boolean
}

const details = new Map<string, ChainEventDetail>()
/** entries dropped because the map was full */
export let droppedDetails = 0

export function chainEventId(e: { chain: string; tx_hash: string; log_index: number; address: string }): string {
  return `${e.chain}:${e.tx_hash}:${e.log_index}:${e.address}`
}

/** Remembers the details of confirmed events (newest last; the oldest go first when full). */
export function recordChainDetails(events: readonly ChainWhaleEvent[]): void {
  for (const e of events) {
    const id = chainEventId(e)
    details.delete(id)
    details.set(id, {
      repeat_count: e.repeat_count,
      hops: e.hops,
      pools: e.pools,
      token_in: e.token_in,
      amount_in: e.amount_in,
      price_source: e.price_source,
      label: e.label,
      internal: e.internal
    })
  }
  while (details.size > MAX_DETAILS) {
    details.delete(details.keys().next().value!)
    droppedDetails += 1
  }
}

export function chainDetail(id: string): ChainEventDetail | undefined {
  return details.size === 0 ? undefined : details.get(id)
}

/** test seam: forget everything */
export function clearChainDetails(): void {
  details.clear()
  droppedDetails = 0
}

interface DetailRow {
  readonly chain: string
  readonly tx_hash: string
  readonly log_index: number
  readonly address: string
  readonly repeat_count: number
  readonly hops: number
  readonly pools: string[]
  readonly token_in: string | null
  readonly amount_in: number | null
  readonly price_source: string | null
  readonly label: string | null
  readonly internal: boolean
}

/** Loads the confirmed events of `chain` since `sinceMs` (a chain source calls it when it starts). */
export async function loadChainDetails(store: Store, chain: string, sinceMs: number): Promise<number> {
  const rows = await store.query<DetailRow>(
    `SELECT chain, tx_hash, log_index, address, repeat_count, hops, pools, token_in, amount_in, price_source, label, internal
     FROM chain_whale_events FINAL
     WHERE chain = {chain:String} AND status = 'confirmed' AND ts >= fromUnixTimestamp64Milli({since:Int64})
     ORDER BY ts`,
    { chain, since: sinceMs }
  )
  for (const r of rows) {
    const id = chainEventId({ ...r, log_index: Number(r.log_index) })
    details.set(id, {
      repeat_count: Number(r.repeat_count),
      hops: Number(r.hops),
      pools: r.pools,
      token_in: r.token_in,
      amount_in: r.amount_in,
      price_source: r.price_source,
      label: r.label,
      internal: Boolean(r.internal)
    })
  }
  return rows.length
}
