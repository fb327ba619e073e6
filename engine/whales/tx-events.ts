/**
 * @module
 * One transaction's net deltas (net-deltas.ts) → at most one whale event per wallet (docs/whales.md):
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
 * - known tokens first: an asset whose decimals are known (`ctx.token`) is shown by symbol in units. An
 *   unlisted asset (off the watch list: decimals and price unknown) is a side only as the one side of a
 *   trade, the other side known: a buy of an unlisted token with a known asset, or its sale for one (the
 *   transaction has Swap logs, and the asset came from, or went to, neither the zero address nor its own
 *   contract, as LP tokens are minted and burnt). Such a side is named by its contract address, its amount is
 *   in raw integer units (exact up to 2^53) and the event says so (`decimals_unknown`); the event is valued
 *   on its known side. An unlisted asset beside a known one of the same direction is left out, and a wallet
 *   that moved only unlisted assets (a transfer of one, a swap between two) gets no event.
 * - liquidity: a wallet that added or removed liquidity in the transaction (net-deltas.ts `liquidity`) gets
 *   no event: it is neither a trade nor a transfer to someone.
 * Pools, the zero address and pure pass-through contracts (net zero, not the sender) never get an event.
 */
import { assetOf, netDeltas, ZERO_ADDRESS, type AssetDelta, type WalletDelta } from './net-deltas.js'
import { NATIVE, type RawTx } from './tx-legs.js'

/** How a token is shown and priced; `undefined` from the lookup = unknown token (raw units, unpriced). */
export interface TokenInfo {
  readonly symbol: string
  readonly decimals: number
  /** `USD` for stablecoins (1), else the asset whose price values it */
  readonly priceAsset: string
}

export interface WalletInfo {
  readonly label: string
  readonly entity: string
  /** wallets of one owner move money `internal`ly */
  readonly owner: string
}

export interface EventPrice {
  /** USD per unit of the asset */
  readonly usd: number
  /** where the price came from, e.g. `stablecoin`, `trades:binance:ETHUSDT`, `candles_1m:bybit:ETHUSDT` */
  readonly source: string
}

export interface EventPricer {
  /** the USD price of `asset` (a token's priceAsset, e.g. `ETH`) at `ts` (epoch ms), or null when unknown */
  price(asset: string, ts: number): EventPrice | null
}

export interface TxEventContext {
  /** token contract (lower-case) or NATIVE → info */
  readonly token: (address: string) => TokenInfo | undefined
  readonly wallet: (address: string) => WalletInfo | undefined
  readonly pricer: EventPricer
  /** smallest USD size reported for a wallet that is not on the watch list */
  readonly minUsd: number
}

export interface ChainWhaleEvent {
  readonly chain: string
  readonly tx_hash: string
  /** lowest log index of the wallet's legs (0 when only the transaction's value touched it) */
  readonly log_index: number
  readonly block_number: number
  readonly block_hash: string
  /** block time, epoch ms */
  readonly ts: number
  readonly address: string
  /** the address that moved the most of the event's token the other way */
  readonly counterparty: string
  readonly event_type: 'transfer_in' | 'transfer_out' | 'swap'
  /**
   * symbol of the asset moved; for a swap, the asset received. An unlisted token's contract address when
   * `decimals_unknown` is `token` (see the module)
   */
  readonly token: string
  /** units of `token` (raw integer units when `decimals_unknown` is `token`) */
  readonly amount: number
  /** swaps: asset given and its amount (raw integer units when `decimals_unknown` is `token_in`); transfers: null */
  readonly token_in: string | null
  readonly amount_in: number | null
  /**
   * the side named by an unlisted token's address, its amount in raw units (decimals unknown); null: none.
   * Always set here; optional for events read back from chain_whale_events, which does not store it (the
   * address in `token` or `token_in` says it: a watch-list symbol is at most 20 characters)
   */
  readonly decimals_unknown?: 'token' | 'token_in' | null
  /** USD at the block time, or null when no price is known */
  readonly usd_value: number | null
  readonly price_source: string | null
  readonly hops: number
  readonly pools: readonly string[]
  /** raw legs (transfer logs, value, unwraps) folded into this event */
  readonly repeat_count: number
  readonly circular: boolean
  readonly internal: boolean
  /** watch-list label of the wallet, or null */
  readonly label: string | null
}

interface Side {
  readonly asset: string
  readonly raw: bigint
  readonly units: number
  readonly symbol: string
  readonly usd: number | null
  readonly source: string | null
}

/** the price of a stablecoin (priceAsset `USD`): one object for all */
const STABLE: EventPrice = Object.freeze({ usd: 1, source: 'stablecoin' })
/** the pools of a transfer event: one frozen empty list for all */
const NO_POOLS: readonly string[] = Object.freeze([])

/** 10^d as bigint for d = 0..36 (watch-list decimals are 0..36) */
const TEN_POW: readonly bigint[] = Array.from({ length: 37 }, (_, d) => 10n ** BigInt(d))

/**
 * `raw` smallest units (>= 0) in whole units of a token of `decimals`: the integer part and the fraction
 * converted apart, so a whole amount stays whole (5e22 raw of 18 decimals is 50000, not 49999.99999999999)
 */
export function unitsOf(raw: bigint, decimals: number): number {
  const p = TEN_POW[decimals] ?? 10n ** BigInt(decimals)
  return Number(raw / p) + Number(raw % p) / Number(p)
}

/** the side of a known token (`info`) */
function sideOf(asset: string, info: TokenInfo, raw: bigint, ts: number, ctx: TxEventContext): Side {
  const abs = raw < 0n ? -raw : raw
  const units = unitsOf(abs, info.decimals)
  const price = info.priceAsset === 'USD' ? STABLE : ctx.pricer.price(info.priceAsset, ts)
  return {
    asset,
    raw: abs,
    units,
    symbol: info.symbol,
    usd: price === null ? null : units * price.usd,
    source: price?.source ?? null
  }
}

/** an EVM (0x + 40 hex) or Solana (base58, 32-44 characters) address: longer than any watch-list symbol (20) */
const ADDRESS_NAME = /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/

/**
 * `decimals_unknown` of a stored event, which does not keep it: the side named by an address rather than a
 * symbol (an unlisted token, its amount in raw units), else null
 */
export function decimalsUnknownOf(token: string, tokenIn: string | null): 'token' | 'token_in' | null {
  if (ADDRESS_NAME.test(token)) return 'token'
  return tokenIn !== null && ADDRESS_NAME.test(tokenIn) ? 'token_in' : null
}

/**
 * the side of an unlisted asset (decimals and price unknown) as one side of a trade: named by its address,
 * raw units, unpriced; undefined when its legs look like liquidity (minted or burnt, or moved to or from its
 * own contract: an LP token) or the transaction swapped nothing
 */
function rawSideOf(a: AssetDelta, tx: RawTx): Side | undefined {
  if (tx.swaps.length === 0 || a.counterparty === ZERO_ADDRESS || a.counterparty === a.asset) return undefined
  const abs = a.net < 0n ? -a.net : a.net
  return { asset: a.asset, raw: abs, units: Number(abs), symbol: a.asset, usd: null, source: null }
}

/**
 * `best` or `s`, whichever is larger: the larger USD value; unpriced only against unpriced (then the larger
 * raw); on a tie the one seen first (`best`)
 */
function larger(best: Side | undefined, s: Side): Side {
  if (best === undefined) return s
  if (s.usd !== null && (best.usd === null || s.usd > best.usd)) return s
  if (s.usd === null && best.usd === null && s.raw > best.raw) return s
  return best
}

/** the side with the largest USD value; unpriced sides only when none is priced (then the largest raw) */
function largest(sides: readonly Side[]): Side | undefined {
  let best: Side | undefined
  for (const s of sides) best = larger(best, s)
  return best
}

function isCircular(d: WalletDelta, tx: RawTx): boolean {
  if (tx.swaps.length === 0 || d.netCount > 1) return false
  for (const a of d.assets) if (a.sentOrder >= 0 && a.received) return true
  return false
}

/** per transaction: its distinct pools, computed for its first swap event only */
interface TxShared {
  pools: readonly string[] | null
}

function eventOf(d: WalletDelta, tx: RawTx, ctx: TxEventContext, shared: TxShared): ChainWhaleEvent | null {
  if (d.liquidity) return null
  const watched = ctx.wallet(d.wallet)
  const relevant = watched !== undefined || d.wallet === tx.sender
  const circular = relevant && isCircular(d, tx)
  if (d.netCount === 0 && !circular) return null
  // the largest known side given and received, folded as they come (no list of sides per event)
  let gave: Side | undefined
  let got: Side | undefined
  let gaveUnknown = false
  let gotUnknown = false
  // the largest unlisted side given and received that can be a trade's side (rawSideOf)
  let gaveRaw: Side | undefined
  let gotRaw: Side | undefined
  for (const a of d.assets) {
    if (a.net === 0n) continue
    const info = ctx.token(a.asset)
    if (info === undefined) {
      const raw = rawSideOf(a, tx)
      if (a.net < 0n) {
        gaveUnknown = true
        if (raw !== undefined) gaveRaw = larger(gaveRaw, raw)
      } else {
        gotUnknown = true
        if (raw !== undefined) gotRaw = larger(gotRaw, raw)
      }
      continue
    }
    const side = sideOf(a.asset, info, a.net, tx.ts, ctx)
    if (a.net < 0n) gave = larger(gave, side)
    else got = larger(got, side)
  }
  let main: Side
  let given: Side | undefined
  let type: ChainWhaleEvent['event_type']
  let decimalsUnknown: ChainWhaleEvent['decimals_unknown'] = null
  if (circular) {
    // sized by what went round: the largest gross amount sent of a known asset that came back (in order of
    // first send)
    const round: Side[] = []
    for (const a of [...d.assets].sort((x, y) => x.sentOrder - y.sentOrder)) {
      const info = a.sentOrder >= 0 && a.received ? ctx.token(a.asset) : undefined
      if (info !== undefined) round.push(sideOf(a.asset, info, a.sent, tx.ts, ctx))
    }
    const wentRound = largest(round)
    if (wentRound === undefined) return null
    main = wentRound
    given = main
    type = 'swap'
  } else if (gave !== undefined && got !== undefined) {
    main = got
    given = gave
    type = 'swap'
  } else if (gave !== undefined && gotUnknown) {
    // a buy of an unlisted token with a known asset
    if (gotRaw === undefined) return null
    main = gotRaw
    given = gave
    type = 'swap'
    decimalsUnknown = 'token'
  } else if (got !== undefined && gaveUnknown) {
    // a sale of an unlisted token for a known asset
    if (gaveRaw === undefined) return null
    main = got
    given = gaveRaw
    type = 'swap'
    decimalsUnknown = 'token_in'
  } else if (gave === undefined && got === undefined) {
    // only unlisted assets: neither the event's value nor its token could be told
    return null
  } else {
    main = (gave ?? got)!
    type = gave !== undefined ? 'transfer_out' : 'transfer_in'
  }
  // a swap is valued on its priced side (the larger when both are priced)
  const valued =
    given !== undefined && (main.usd === null || (given.usd !== null && given.usd > main.usd)) ? given : main
  const usd = valued.usd
  if (watched === undefined && (usd === null || usd < ctx.minUsd)) return null
  const counterparty = assetOf(d, main.asset)?.counterparty ?? ''
  const other = ctx.wallet(counterparty)
  const internal = type !== 'swap' && watched !== undefined && other !== undefined && other.owner === watched.owner
  let pools = NO_POOLS
  if (type === 'swap') pools = shared.pools ??= [...new Set(tx.swaps.map((s) => s.pool))]
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
    pools,
    repeat_count: d.legs,
    circular,
    internal,
    label: watched?.label ?? null
  }
}

/** The whale events of one transaction, one per reported wallet, in order of the wallets' first legs. */
export function txEvents(tx: RawTx, ctx: TxEventContext): ChainWhaleEvent[] {
  // a one-element literal at the first event: an empty `[]` gets room for 16 at its first push
  let out: ChainWhaleEvent[] | null = null
  const shared: TxShared = { pools: null }
  for (const d of netDeltas(tx)) {
    const e = eventOf(d, tx, ctx, shared)
    if (e === null) continue
    if (out === null) out = [e]
    else out.push(e)
  }
  return out ?? []
}

export { NATIVE }
