/**
 * @module
 * The one loader of the live books from the store: the live rebuild (bounds `liveBounds()`) and the books
 * as of a point in time (`pitBounds(pit)`) read the same rows through the same queries, the latter bounded
 * by `ts <= asOf AND ingest_ts <= knownBy` with every window counted back from `asOf`:
 * - the screener's hourly figures and newest readings (engine/live/screener-load.ts);
 * - on-chain readings of the last 48 h (exchange net flow, MVRV) for the on-chain book;
 * - whale transfers of the last 7 days for the whale window (an answer as of a moment reads only the parts
 *   it uses: `BooksParts`);
 * - per market, the hourly last funding rates of the last 30 days (the confirmation model's history).
 * `booksAt` builds fresh books from a load, which answer with now = asOf.
 */
import type { OnchainMetricRecord, WhaleTransferRecord } from '../records/types.js'
import type { Store } from '../store/store.js'
import type { PointInTime } from '../asof/point-in-time.js'
import { completeHours } from '../asof/known-at.js'
import { tokensOf } from '../history/whale-assets.js'
import { loadScreener, type ScreenerLoad } from './screener-load.js'
import { ScreenerBook } from './screener-book.js'
import { OnchainBook } from './onchain-book.js'
import { WhaleWindow, WHALE_WINDOW_MS } from './whale-window.js'
import { boundParams, HOUR_MS, knownSql, pitBounds, rawSpan, rawSpanSql, type LoadBounds } from './load-bounds.js'

/** On-chain readings a load reads, ms back from now (the book sums 24 h of them). */
export const ONCHAIN_LOAD_MS = 48 * HOUR_MS
/** The on-chain metrics the books use. */
export const BOOK_METRICS = ['exchange_netflow_usd', 'mvrv'] as const
/** The funding history of the confirmation model, ms back from now. */
export const FUNDING_HISTORY_MS = 30 * 86_400_000

export interface BooksLoad {
  readonly screener: ScreenerLoad
  readonly onchain: readonly OnchainMetricRecord[]
  readonly whales: readonly WhaleTransferRecord[]
}

/** Which books a load fills: an answer as of a moment reads only what it uses. */
export interface BooksParts {
  /** the on-chain readings of the last ONCHAIN_LOAD_MS */
  readonly onchain: boolean
  /** how far back whale transfers are read, ms; 0: none */
  readonly whalesMs: number
}

/** Every book in full: the live rebuild. */
export const ALL_BOOKS: BooksParts = { onchain: true, whalesMs: WHALE_WINDOW_MS }
/** The screener book only (the screener as of a moment). */
export const SCREENER_ONLY: BooksParts = { onchain: false, whalesMs: 0 }
/**
 * What the confirmation model reads: the screener and on-chain books, and the whale transfers of the last
 * 24 h (the window of `WhaleWindow.flows24h`, the model's only whale input).
 */
export const CONFIRM_BOOKS: BooksParts = { onchain: true, whalesMs: 86_400_000 }

/** What the screener book, the on-chain book and the whale window hold, read within `b` (parts `p`). */
export async function loadBooks(store: Store, b: LoadBounds, p: BooksParts = ALL_BOOKS): Promise<BooksLoad> {
  // independent reads: concurrent on the store's session pool
  const [screener, onchain, whales] = await Promise.all([
    loadScreener(store, b),
    p.onchain ? loadOnchain(store, b) : [],
    p.whalesMs > 0 ? loadWhales(store, b, p.whalesMs) : []
  ])
  return { screener, onchain, whales }
}

// the event time is aliased ms and renamed after: an alias named ts would shadow the column in WHERE
type Ms<T> = Omit<T, 'ts'> & { ms: number }

// Records are built field by field in the type's order, never by rest and spread (`({ ms, ...r }) => ({ ...r,
// ts: ms })`): one spread site fed rows of several shapes goes megamorphic, and V8 then gives every object it
// builds a hidden class of its own. The whale window holds ~18k such records on the demo market: ~3 more heap
// objects each (class, descriptors, property array) that every full collection marks.
const onchainRecord = (r: Ms<OnchainMetricRecord>): OnchainMetricRecord => ({
  kind: r.kind,
  ts: r.ms,
  asset: r.asset,
  metric: r.metric,
  value: r.value
})

const whaleRecord = (r: Ms<WhaleTransferRecord>): WhaleTransferRecord => ({
  kind: r.kind,
  ts: r.ms,
  chain: r.chain,
  tx_hash: r.tx_hash,
  log_index: r.log_index,
  block_number: r.block_number,
  address: r.address,
  counterparty: r.counterparty,
  event_type: r.event_type,
  token: r.token,
  amount: r.amount,
  usd_value: r.usd_value
})

export async function loadOnchain(store: Store, b: LoadBounds): Promise<OnchainMetricRecord[]> {
  const rows = await store.query<Ms<OnchainMetricRecord>>(
    `SELECT 'onchain_metric' AS kind, toUnixTimestamp64Milli(ts) AS ms, asset, metric, value FROM onchain_metrics
     WHERE ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC') AND metric IN {metrics:Array(String)}${knownSql(b)}
       ${b.bases ? 'AND asset IN {bases:Array(String)}' : ''}
     ORDER BY ms`,
    { ...boundParams(b), since: b.nowMs - ONCHAIN_LOAD_MS, metrics: [...BOOK_METRICS] }
  )
  return rows.map(onchainRecord)
}

/** Whale transfers of the `windowMs` (default: the whale window's 7 days) before `b.nowMs`, oldest first. */
export async function loadWhales(
  store: Store,
  b: LoadBounds,
  windowMs = WHALE_WINDOW_MS
): Promise<WhaleTransferRecord[]> {
  const tokens = b.bases ? b.bases.flatMap((x) => tokensOf(x)) : null
  const rows = await store.query<Ms<WhaleTransferRecord>>(
    `SELECT 'whale_transfer' AS kind, toUnixTimestamp64Milli(ts) AS ms, chain, tx_hash, log_index, block_number,
            address, counterparty, toString(event_type) AS event_type, token, amount, usd_value
     FROM whale_transfers WHERE ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')${knownSql(b)}
       ${tokens ? 'AND upper(token) IN {tokens:Array(String)}' : ''}
     ORDER BY ms, chain, tx_hash, log_index, address`,
    { ...boundParams(b), since: b.nowMs - windowMs, ...(tokens ? { tokens } : {}) }
  )
  return rows.map(whaleRecord)
}

/**
 * How many distinct wallets (chain + address, chains among `chains`) the whale transfers of the `windowMs`
 * before `b.nowMs` name: the whale summary's `total_whales_tracked`, counted by the store.
 */
export async function countWhaleWallets(
  store: Store,
  b: LoadBounds,
  windowMs: number,
  chains: readonly string[]
): Promise<number> {
  const [row] = await store.query<{ n: number }>(
    `SELECT count() AS n FROM (
       SELECT chain, address FROM whale_transfers
       WHERE ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC') AND chain IN {chains:Array(String)}${knownSql(b)}
       GROUP BY chain, address)`,
    { ...boundParams(b), since: b.nowMs - windowMs, chains: [...chains] }
  )
  return Number(row?.n ?? 0)
}

/** The first hour start (ms) of the funding history at `nowMs`: hour starts at or after nowMs - 30 d
 * (hour-aligned, so the same set as `bucket >= now() - 30 DAY`). */
export function fundingWindowStart(nowMs: number): number {
  return Math.ceil((nowMs - FUNDING_HISTORY_MS) / HOUR_MS) * HOUR_MS
}

/**
 * The hourly last funding rate of one market over the 30 days before `b.nowMs`, oldest hour first (hours
 * without a reading are absent). Live: `funding_1h`. At a point in time: `funding_1h` for the hours complete
 * by then, the raw readings known by then for the others.
 */
export async function loadFundingHistory(
  store: Store,
  exchange: string,
  symbol: string,
  b: LoadBounds
): Promise<number[]> {
  const fromMs = fundingWindowStart(b.nowMs)
  // nothing is stored before the epoch (DateTime columns): a window reaching before it starts there
  const market = { exchange, symbol, fromS: Math.max(0, fromMs / 1000) }
  const agg = `SELECT toUnixTimestamp(bucket) AS h, argMaxMerge(rate_last) AS r FROM funding_1h
       WHERE exchange = {exchange:String} AND symbol = {symbol:String} AND bucket >= toDateTime({fromS:UInt32}, 'UTC')`
  if (!b.pit) {
    const rows = await store.query<{ r: number }>(`${agg} GROUP BY bucket ORDER BY bucket`, market)
    return rows.map((x) => x.r)
  }
  const { complete, raw } = await completeHours(
    store,
    'funding',
    fromMs,
    b.pit.asOfMs + 1,
    b.pit.asOfMs,
    b.pit.knownByMs
  )
  const parts: string[] = []
  const params: Record<string, unknown> = { ...boundParams(b), ...market }
  if (complete.length) {
    params['hc'] = complete.map((h) => h / 1000)
    parts.push(`${agg} AND toUnixTimestamp(bucket) IN {hc:Array(UInt32)} GROUP BY bucket`)
  }
  if (raw.length) {
    params['hr'] = raw.map((h) => h / 1000)
    Object.assign(params, rawSpan('r', raw))
    parts.push(`SELECT toUnixTimestamp(toStartOfHour(ts)) AS h, argMax(funding_rate, ts) AS r FROM funding
       WHERE exchange = {exchange:String} AND symbol = {symbol:String} AND ts >= toDateTime64({fromS:UInt32}, 3, 'UTC')${rawSpanSql('r')}
         AND toUnixTimestamp(toStartOfHour(ts)) IN {hr:Array(UInt32)}${knownSql(b)}
       GROUP BY h`)
  }
  if (parts.length === 0) return []
  const rows = await store.query<{ h: number; r: number }>(
    `SELECT h, r FROM (${parts.join(' UNION ALL ')}) ORDER BY h`,
    params as Record<string, number | string | number[]>
  )
  return rows.map((x) => x.r)
}

/** Fresh books filled from a load (the live rebuild resets its own books the same way). */
export interface Books {
  readonly screener: ScreenerBook
  readonly onchain: OnchainBook
  readonly whales: WhaleWindow
}

/** Fills `books` with `l` (cleared first). */
export function fillBooks(books: Books, l: BooksLoad): void {
  books.screener.clear()
  for (const r of l.screener.hourly) books.screener.loadHour(r.exchange, r.symbol, r.base, r.h, r.oi, r.v, r.close)
  for (const t of l.screener.lastTrades) books.screener.loadLastTrade(t.exchange, t.symbol, t.last_ms)
  books.screener.loadLatest(l.screener.latest)
  books.onchain.clear()
  books.onchain.apply(l.onchain)
  books.whales.reset(l.whales)
}

/**
 * The books as of a point in time (optionally only some bases, only some parts: the others stay empty),
 * answering with now = `pit.asOfMs`.
 */
export async function booksAt(
  store: Store,
  pit: PointInTime,
  bases?: readonly string[],
  parts: BooksParts = ALL_BOOKS
): Promise<Books> {
  const l = await loadBooks(store, pitBounds(pit, bases), parts)
  const books = { screener: new ScreenerBook(), onchain: new OnchainBook(), whales: new WhaleWindow() }
  fillBooks(books, l)
  return books
}
