/**
 * @module
 * Whale flow reads per bucket (docs/history-whales.md). Two sources:
 * - `whale_flows_1h` / `whale_flows_1d` (schemas/004_whale_flows.sql, 24 months): events, USD in, out and
 *   total, and distinct wallets, for the asset's tokens summed over chains;
 * - raw `whale_transfers` (90 days): the part of those flows whose counterparty is a labelled exchange hot
 *   wallet, and the raw row count that shows whether a bucket's raw rows are all still held.
 * Both count the same raw rows (the aggregates are materialized from them on insert), so a bucket whose raw
 * count equals its aggregated event count has every raw row; fewer means the 90-day TTL dropped some.
 * Aliases never repeat a column name (ClickHouse alias trap).
 */
import { ApiError } from '../errors.js'
import type { Store } from '../store/store.js'
import { bucketSql } from './span.js'
import { seconds, type BucketGrid } from './snapshot-grid.js'
import { assetsOf, tokensOf } from './whale-assets.js'
import { exchangeOwners } from '../whales/exchange-wallets.js'
import { whaleFrom } from './whale-known.js'

/** Aggregated whale flows of one bucket; USD at each transfer's time. */
export interface WhaleFlowBucket {
  /** bucket start, epoch ms */
  readonly t: number
  /** raw transfer rows (swaps included) */
  readonly events: number
  /** USD received by tracked wallets (transfer_in) */
  readonly usdIn: number
  /** USD sent by tracked wallets (transfer_out) */
  readonly usdOut: number
  /** USD of every row: transfers in and out and swaps */
  readonly usdTotal: number
  /** distinct tracked wallet addresses (uniq: exact below 65,536) */
  readonly whales: number
}

/** The exchange part of one bucket's flows, from raw rows. */
export interface ExchangeFlowBucket {
  readonly t: number
  /** raw rows of the asset's tokens still held for the bucket */
  readonly rows: number
  /** USD sent by tracked wallets to labelled exchange hot wallets (deposits) */
  readonly inflow: number
  /** USD received by tracked wallets from labelled exchange hot wallets (withdrawals) */
  readonly outflow: number
}

/** Bucket bounds of a grid as a WHERE condition on `col`; bounds are whole hours (seconds parameters). */
const within = (col: string): string =>
  `${col} >= toDateTime({from:UInt32}, 'UTC') AND ${col} < toDateTime({to:UInt32}, 'UTC')`

/** Raw rows received by `known` (epoch ms). */
const KNOWN_ROWS = ` AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')`

const gridParams = (grid: BucketGrid) => ({ from: seconds(grid.from), to: seconds(grid.end) })

/** Upper-case tokens with any whale flow in the last 24 months. */
export async function whaleTokens(store: Store): Promise<string[]> {
  const rows = await store.query<{ tk: string }>(`SELECT DISTINCT upper(token) AS tk FROM whale_flows_1d ORDER BY tk`)
  return rows.map((r) => r.tk)
}

/**
 * Tokens seen with whale flows, per store: a hit answers without a query. A token, once in the aggregates,
 * stays for their 24-month TTL, so only a miss (a new asset, or a typo) re-reads the table; the set is also
 * re-read when older than an hour, so a token the TTL dropped does not pass forever.
 */
const seenTokens = new WeakMap<Store, { readonly tokens: ReadonlySet<string>; readonly at: number }>()
const SEEN_MAX_AGE_MS = 3_600_000

/**
 * The tokens of `asset` (whale-assets.ts); 400 `unknown_symbol` naming the assets there are when none of
 * its tokens has any whale flow in the last 24 months.
 */
export async function requireWhaleAsset(
  store: Store,
  asset: string,
  param = 'asset',
  now: () => number = Date.now
): Promise<string[]> {
  const tokens = tokensOf(asset)
  const seen = seenTokens.get(store)
  if (seen && now() - seen.at < SEEN_MAX_AGE_MS && tokens.some((t) => seen.tokens.has(t))) return tokens
  const held = await whaleTokens(store)
  seenTokens.set(store, { tokens: new Set(held), at: now() })
  if (!tokens.some((t) => held.includes(t))) {
    const known = assetsOf(held)
    throw new ApiError(
      'unknown_symbol',
      known.length > 0
        ? `no whale flow history for ${asset.toUpperCase()}; assets with whale history: ${known.join(', ')}`
        : `no whale flow history for ${asset.toUpperCase()}: no whale transfers are stored yet`,
      { param }
    )
  }
  return tokens
}

/**
 * Aggregated flows of `tokens` per grid bucket with any row, oldest first; with `knownByMs`, of the rows
 * received by then (whale-known.ts).
 */
export async function readWhaleFlows(
  store: Store,
  tokens: readonly string[],
  grid: BucketGrid,
  knownByMs?: number
): Promise<WhaleFlowBucket[]> {
  if (grid.starts.length === 0) return []
  const src = await whaleFrom(store, grid.daily ? 'whale_flows_1d' : 'whale_flows_1h', grid.from, grid.end, knownByMs)
  const rows = await store.query<{ t: number; n: number; i: number; o: number; v: number; w: number }>(
    `SELECT toUnixTimestamp(b) * 1000 AS t, sum(events) AS n, sum(usd_in) AS i, sum(usd_out) AS o,
       sum(usd_total) AS v, uniqMerge(wallets) AS w
     FROM ${src.from}
     WHERE upper(token) IN {tokens:Array(String)} AND ${within('bucket')}
     GROUP BY ${bucketSql('bucket', grid.interval)} AS b ORDER BY t`,
    { tokens, ...gridParams(grid), ...src.params }
  )
  return rows.map((r) => ({
    t: Number(r.t),
    events: Number(r.n),
    usdIn: r.i,
    usdOut: r.o,
    usdTotal: r.v,
    whales: Number(r.w)
  }))
}

/**
 * Exchange flows of `tokens` per grid bucket with any raw row, oldest first. `hotWallets` are the labelled
 * exchange addresses, with the watch list's exchange wallets added (engine/whales/exchange-wallets.ts);
 * EVM addresses (0x...) compare case-insensitively, Solana's base58 exactly. Swaps are neither inflow nor
 * outflow, and neither is a transfer between two wallets of one exchange (internal: both sides have the same
 * owner). With `knownByMs`, only rows received by then.
 */
export async function readExchangeFlows(
  store: Store,
  tokens: readonly string[],
  hotWallets: readonly string[],
  grid: BucketGrid,
  knownByMs?: number
): Promise<ExchangeFlowBucket[]> {
  if (grid.starts.length === 0) return []
  const { addresses, owners } = exchangeOwners()
  const known = new Set(addresses)
  for (const w of hotWallets) {
    if (known.has(w)) continue
    addresses.push(w)
    owners.push(w) // an address without owner is its own exchange
  }
  const rows = await store.query<{ t: number; n: number; i: number; o: number }>(
    `SELECT toUnixTimestamp(b) * 1000 AS t, count() AS n,
       sumIf(usd_value, event_type = 'transfer_out' AND with_exchange) AS i,
       sumIf(usd_value, event_type = 'transfer_in' AND with_exchange) AS o
     FROM (
       SELECT at, usd_value, event_type, cp_owner != '' AND cp_owner != own_owner AS with_exchange
       FROM (
         SELECT toDateTime(ts, 'UTC') AS at, usd_value, event_type,
           transform(if(startsWith(counterparty, '0x'), lower(counterparty), counterparty),
             {addresses:Array(String)}, {owners:Array(String)}, '') AS cp_owner,
           transform(if(startsWith(address, '0x'), lower(address), address),
             {addresses:Array(String)}, {owners:Array(String)}, '') AS own_owner
         FROM whale_transfers
         WHERE upper(token) IN {tokens:Array(String)} AND ${within('ts')}${knownByMs === undefined ? '' : KNOWN_ROWS}
       )
     )
     GROUP BY ${bucketSql('at', grid.interval)} AS b ORDER BY t`,
    { tokens, addresses, owners, ...gridParams(grid), ...(knownByMs === undefined ? {} : { known: knownByMs }) }
  )
  return rows.map((r) => ({ t: Number(r.t), rows: Number(r.n), inflow: r.i, outflow: r.o }))
}
