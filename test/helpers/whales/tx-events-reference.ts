/**
 * @module
 * REFERENCE COPY (test only) of engine/whales/tx-events.ts as it was before its array layout (commit 2a859ef),
 * for test/unit/whale-net-deltas-equivalence.test.ts. One transaction's net deltas (net-deltas.ts) → at most one whale event per wallet (docs/whales.md):
 *
 * - only positive nets: `transfer_in`; only negative: `transfer_out`; both: `swap` with `token_in` (the asset
 *   it gave most of, by USD when priced) and `token_out` (received most of). `hops` = Swap logs of the
 *   transaction, `pools` = their distinct emitters (both 0 / empty for transfers); `repeat_count` = the raw legs folded into the event.
 * - circular: the transaction has Swap logs and the wallet (its sender or a watched wallet) sent and got back
 *   the same asset, ending with at most one asset changed (`ETH→AAA→BBB→ETH`: arbitrage, MEV or wash). Kept as
 *   a `swap` with `circular` set, sized by what went round; never counted in flows.
 * - internal: a transfer between two watched wallets of the same owner (one exchange moving its own money);
 *   kept with `internal` set and left out of exchange flows.
 * - USD: from the service's own prices at the block time (`EventPricer`), `price_source` says which; an
 *   event that cannot be priced keeps `usd_value` null (never 0).
 * - reported: every wallet on the watch list, and any other wallet whose event is worth at least `minUsd`
 *   (an unpriced event of an unwatched wallet cannot be sized, so it is not reported).
 * - known tokens first (the rule of tx-events.ts, added to this copy): an unknown asset is a side only as the
 *   one side of a trade whose other side is known (Swap logs in the transaction, its counterparty neither the
 *   zero address nor its own contract), named by its address in raw units (`decimals_unknown`); a wallet
 *   with only unknown assets, or an unknown side that cannot be a trade's, gets no event.
 * Pools, the zero address and pure pass-through contracts (net zero, not the sender) never get an event.
 */
import { unitsOf, type ChainWhaleEvent, type TxEventContext } from '../../../engine/whales/tx-events.js'
import { type RawTx } from '../../../engine/whales/tx-legs.js'
import { netDeltas, type WalletDelta } from './net-deltas-reference.js'

interface Side {
  readonly asset: string
  readonly raw: bigint
  readonly units: number
  readonly symbol: string
  readonly usd: number | null
  readonly source: string | null
}

function sideOf(asset: string, raw: bigint, ts: number, ctx: TxEventContext): Side {
  const info = ctx.token(asset)
  const abs = raw < 0n ? -raw : raw
  if (info === undefined) return { asset, raw: abs, units: Number(abs), symbol: asset, usd: null, source: null }
  // whole units as tx-events.ts converts them (its unitsOf)
  const units = unitsOf(abs, info.decimals)
  const price = info.priceAsset === 'USD' ? { usd: 1, source: 'stablecoin' } : ctx.pricer.price(info.priceAsset, ts)
  return {
    asset,
    raw: abs,
    units,
    symbol: info.symbol,
    usd: price === null ? null : units * price.usd,
    source: price?.source ?? null
  }
}

/** the side with the largest USD value; unpriced sides only when none is priced (then the largest raw) */
function largest(sides: readonly Side[]): Side | undefined {
  let best: Side | undefined
  for (const s of sides) {
    if (best === undefined) best = s
    else if (s.usd !== null && (best.usd === null || s.usd > best.usd)) best = s
    else if (s.usd === null && best.usd === null && s.raw > best.raw) best = s
  }
  return best
}

function isCircular(d: WalletDelta, tx: RawTx): boolean {
  if (tx.swaps.length === 0 || d.net.size > 1) return false
  for (const asset of d.sent.keys()) if (d.received.has(asset)) return true
  return false
}

function eventOf(d: WalletDelta, tx: RawTx, ctx: TxEventContext): ChainWhaleEvent | null {
  const watched = ctx.wallet(d.wallet)
  const relevant = watched !== undefined || d.wallet === tx.sender
  const circular = relevant && isCircular(d, tx)
  if (d.net.size === 0 && !circular) return null
  const gave: Side[] = []
  const got: Side[] = []
  const known = (asset: string): boolean => ctx.token(asset) !== undefined
  for (const [asset, v] of d.net) if (known(asset)) (v < 0n ? gave : got).push(sideOf(asset, v, tx.ts, ctx))
  const gaveUnknown = [...d.net].some(([asset, v]) => v < 0n && !known(asset))
  const gotUnknown = [...d.net].some(([asset, v]) => v > 0n && !known(asset))
  const tradeable = (asset: string): boolean => {
    const cp = d.counterparty.get(asset)?.address
    return tx.swaps.length > 0 && cp !== '0x0000000000000000000000000000000000000000' && cp !== asset
  }
  const raw = (sign: -1 | 1): Side[] =>
    [...d.net]
      .filter(([asset, v]) => !known(asset) && (sign < 0 ? v < 0n : v > 0n) && tradeable(asset))
      .map(([asset, v]) => sideOf(asset, v, tx.ts, ctx))
  let main: Side
  let given: Side | undefined
  let type: ChainWhaleEvent['event_type']
  let decimalsUnknown: ChainWhaleEvent['decimals_unknown'] = null
  if (circular) {
    // sized by what went round: the largest gross amount sent of a known asset that came back
    const round = [...d.sent].filter(([a]) => d.received.has(a) && known(a)).map(([a, v]) => sideOf(a, v, tx.ts, ctx))
    if (round.length === 0) return null
    main = largest(round)!
    given = main
    type = 'swap'
  } else if (gave.length === 0 && got.length === 0) {
    return null
  } else if (gave.length > 0 && got.length === 0 && gotUnknown) {
    if (raw(1).length === 0) return null
    main = largest(raw(1))!
    given = largest(gave)!
    type = 'swap'
    decimalsUnknown = 'token'
  } else if (got.length > 0 && gave.length === 0 && gaveUnknown) {
    if (raw(-1).length === 0) return null
    main = largest(got)!
    given = largest(raw(-1))!
    type = 'swap'
    decimalsUnknown = 'token_in'
  } else if (gave.length > 0 && got.length > 0) {
    main = largest(got)!
    given = largest(gave)!
    type = 'swap'
  } else {
    main = largest(gave.length > 0 ? gave : got)!
    type = gave.length > 0 ? 'transfer_out' : 'transfer_in'
  }
  // a swap is valued on its priced side (the larger when both are priced)
  const valued =
    given !== undefined && (main.usd === null || (given.usd !== null && given.usd > main.usd)) ? given : main
  const usd = valued.usd
  if (watched === undefined && (usd === null || usd < ctx.minUsd)) return null
  const counterparty = d.counterparty.get(main.asset)?.address ?? ''
  const other = ctx.wallet(counterparty)
  const internal = type !== 'swap' && watched !== undefined && other !== undefined && other.owner === watched.owner
  return {
    chain: tx.chain,
    tx_hash: tx.txHash,
    log_index: Math.max(0, d.firstLog),
    block_number: tx.blockNumber,
    block_hash: tx.blockHash,
    ts: tx.ts,
    address: d.wallet,
    counterparty,
    event_type: type,
    token: main.symbol,
    amount: main.units,
    token_in: given?.symbol ?? null,
    amount_in: given?.units ?? null,
    decimals_unknown: decimalsUnknown,
    usd_value: usd,
    price_source: usd === null ? null : valued.source,
    hops: type === 'swap' ? tx.swaps.length : 0,
    pools: type === 'swap' ? [...new Set(tx.swaps.map((s) => s.pool))] : [],
    repeat_count: d.legs,
    circular,
    internal,
    label: watched?.label ?? null
  }
}

/** The whale events of one transaction, one per reported wallet, in order of the wallets' first legs. */
export function txEventsReference(tx: RawTx, ctx: TxEventContext): ChainWhaleEvent[] {
  const out: ChainWhaleEvent[] = []
  for (const d of netDeltas(tx)) {
    const e = eventOf(d, tx, ctx)
    if (e !== null) out.push(e)
  }
  return out
}
