/**
 * @module
 * What a chain-derived whale event knows beyond its whale_transfers row (hops, pools, the asset given, the
 * raw legs folded, the price source, the watch-list label), by event id (`chain:tx_hash:log_index:address`,
 * the id GET /v1/whales/events gives the event), so the read API shows them (collapse.ts adds them to the
 * event). Filled by the chain sources as they confirm events, and at their start from chain_whale_events
 * (the 7-day whale window). Bounded: beyond MAX_DETAILS the oldest transactions' entries are dropped and counted;
 * an event without its entry is served without the extra fields.
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

/** a remembered detail with its event's identity (tx_hash is byTx's key) */
interface Entry extends ChainEventDetail {
  readonly chain: string
  readonly log_index: number
  readonly address: string
}

/**
 * An event's entry: its identity and details only, not the event (whose 22 fields, amount and USD boxes and
 * counterparty would stay alive for the 7-day window: the old generation the collector marks again and again).
 */
class FullEntry implements Entry {
  constructor(
    readonly chain: string,
    readonly log_index: number,
    readonly address: string,
    readonly repeat_count: number,
    readonly hops: number,
    readonly pools: readonly string[],
    readonly token_in: string | null,
    readonly amount_in: number | null,
    readonly price_source: string | null,
    readonly label: string | null,
    readonly internal: boolean
  ) {}
}

const NO_POOLS: readonly string[] = Object.freeze([])

/**
 * The entry of a plain event (no Swap logs, no asset given, no label, not internal: most transfers), five
 * fields; the constant ones are read from the prototype.
 */
class PlainEntry implements Entry {
  constructor(
    readonly chain: string,
    readonly log_index: number,
    readonly address: string,
    readonly repeat_count: number,
    readonly price_source: string | null
  ) {}
  get hops(): number {
    return 0
  }
  get pools(): readonly string[] {
    return NO_POOLS
  }
  get token_in(): null {
    return null
  }
  get amount_in(): null {
    return null
  }
  get label(): null {
    return null
  }
  get internal(): false {
    return false
  }
}

type DetailSource = ChainEventDetail & { readonly chain: string; readonly log_index: number; readonly address: string }

function entryOf(e: DetailSource): Entry {
  if (
    e.hops === 0 &&
    e.pools.length === 0 &&
    e.token_in === null &&
    e.amount_in === null &&
    e.label === null &&
    !e.internal
  )
    return new PlainEntry(e.chain, e.log_index, e.address, e.repeat_count, e.price_source)
  return new FullEntry(
    e.chain,
    e.log_index,
    e.address,
    e.repeat_count,
    e.hops,
    e.pools,
    e.token_in,
    e.amount_in,
    e.price_source,
    e.label,
    e.internal
  )
}

/**
 * tx_hash → its events' entries (one, or an array when a transaction has several), oldest transaction first.
 * Keyed by the events' own tx_hash strings, so remembering an event builds no key string (a composite id per
 * event was a third of the chain decode benchmark's encoding time).
 */
const byTx = new Map<string, Entry | Entry[]>()
/** entries held in byTx */
let size = 0
/** entries dropped because the map was full */
export let droppedDetails = 0

export function chainEventId(e: { chain: string; tx_hash: string; log_index: number; address: string }): string {
  return `${e.chain}:${e.tx_hash}:${e.log_index}:${e.address}`
}

const same = (a: Entry, chain: string, logIndex: number, address: string): boolean =>
  a.log_index === logIndex && a.address === address && a.chain === chain

/** the newest transaction of byTx (its events usually come one after another: no move needed) */
let newestTx: string | null = null

/** A transaction not in the map yet, with its entries: it becomes the newest. */
function addNewTx(txHash: string, held: Entry | Entry[]): void {
  byTx.set(txHash, held)
  newestTx = txHash
  size += Array.isArray(held) ? held.length : 1
}

function remember(txHash: string, e: Entry): void {
  const held = byTx.get(txHash)
  if (held === undefined) {
    addNewTx(txHash, e)
    return
  }
  let list: Entry | Entry[] = held
  if (!Array.isArray(held)) {
    if (same(held, e.chain, e.log_index, e.address)) list = e
    else {
      list = [held, e]
      size += 1
    }
  } else {
    // a known event's entry is replaced in place
    const i = held.findIndex((h) => same(h, e.chain, e.log_index, e.address))
    if (i >= 0) held[i] = e
    else {
      held.push(e)
      size += 1
    }
  }
  // the transaction becomes the newest
  if (newestTx !== txHash) {
    byTx.delete(txHash)
    newestTx = txHash
  }
  byTx.set(txHash, list)
}

/** drops the oldest transactions' entries while more than MAX_DETAILS are held */
function bound(): void {
  while (size > MAX_DETAILS) {
    const [tx, held] = byTx.entries().next().value!
    byTx.delete(tx)
    const n = Array.isArray(held) ? held.length : 1
    size -= n
    droppedDetails += n
  }
}

/**
 * Remembers the details of confirmed events (newest last; the oldest transactions go first when full), except
 * events older than `sinceMs` (epoch ms; the chain sources pass the start of the 7-day whale window): no read
 * path serves them, and a backfill of old blocks would otherwise fill the map with entries only to drop them.
 */
export function recordChainDetails(events: readonly ChainWhaleEvent[], sinceMs: number): void {
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!
    if (e.ts < sinceMs) continue
    const next = events[i + 1]
    // two events of a transaction new to the map (a transfer's sender and receiver): one lookup and one
    // insert for both, where remembering them one by one takes two of each; the same map after either way
    if (
      next !== undefined &&
      next.ts >= sinceMs &&
      next.tx_hash === e.tx_hash &&
      !same(e, next.chain, next.log_index, next.address) &&
      !byTx.has(e.tx_hash)
    ) {
      addNewTx(e.tx_hash, [entryOf(e), entryOf(next)])
      i++
      continue
    }
    remember(e.tx_hash, entryOf(e))
  }
  bound()
}

/**
 * The details of the event `chain`:`tx_hash`:`log_index`:`address` (chainEventId), if remembered: a plain
 * object with the eight fields as its own properties (a PlainEntry reads its constant ones from the
 * prototype, which a spread or JSON.stringify of the entry itself would drop). One small object per row
 * looked up (collapse.ts, on the read path only).
 */
export function chainDetailOf(
  chain: string,
  txHash: string,
  logIndex: number,
  address: string
): ChainEventDetail | undefined {
  if (size === 0) return undefined
  const held = byTx.get(txHash)
  if (held === undefined) return undefined
  const entry = Array.isArray(held) ? held.find((h) => same(h, chain, logIndex, address)) : held
  return entry !== undefined && same(entry, chain, logIndex, address) ? detailOf(entry) : undefined
}

function detailOf(e: Entry): ChainEventDetail {
  return {
    repeat_count: e.repeat_count,
    hops: e.hops,
    pools: e.pools,
    token_in: e.token_in,
    amount_in: e.amount_in,
    price_source: e.price_source,
    label: e.label,
    internal: e.internal
  }
}

/** test seam: forget everything */
export function clearChainDetails(): void {
  loaded = new WeakMap()
  byTx.clear()
  newestTx = null
  size = 0
  droppedDetails = 0
}

/** entries held (at most MAX_DETAILS) */
export function chainDetailCount(): number {
  return size
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

/** the chains whose details were loaded from each store (loadChainDetails runs once per store and chain) */
let loaded = new WeakMap<Store, Set<string>>()

/**
 * Loads the confirmed events of `chain` since `sinceMs` that count in flows, once per store and chain (a
 * chain source calls it at each start; a restart after an error keeps what the process remembered, and a
 * second load would only repeat the rows): details are looked up from whale_transfers rows only, which
 * circular and unpriced events never become. Returns the rows loaded (0 when already loaded).
 */
export async function loadChainDetails(store: Store, chain: string, sinceMs: number): Promise<number> {
  const chains = loaded.get(store) ?? new Set<string>()
  if (chains.has(chain)) return 0
  const rows = await store.query<DetailRow>(
    `SELECT chain, tx_hash, log_index, address, repeat_count, hops, pools, token_in, amount_in, price_source, label, internal
     FROM chain_whale_events FINAL
     WHERE chain = {chain:String} AND status = 'confirmed' AND ts >= fromUnixTimestamp64Milli({since:Int64})
       AND NOT circular AND usd_value IS NOT NULL
     ORDER BY ts`,
    { chain, since: sinceMs }
  )
  for (const r of rows) {
    remember(
      r.tx_hash,
      entryOf({
        chain: r.chain,
        log_index: Number(r.log_index),
        address: r.address,
        repeat_count: Number(r.repeat_count),
        hops: Number(r.hops),
        pools: r.pools,
        token_in: r.token_in,
        amount_in: r.amount_in,
        price_source: r.price_source,
        label: r.label,
        internal: Boolean(r.internal)
      })
    )
  }
  bound()
  chains.add(chain)
  loaded.set(store, chains)
  return rows.length
}
