/**
 * A small deterministic market for point-in-time tests, written straight into a store with explicit receive
 * times (`ingest_ts`): a base's perpetuals on two venues (trades, funding, open interest, long/short), on-chain
 * net flow and MVRV, whale transfers. Values are integers or short decimals so every sum is exact.
 */
import type { Store } from '../../../engine/store/store.js'
import { mulberry32 } from '../mulberry32.js'

const MINUTE = 60_000

const dt = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')

type Row = Record<string, string | number | null> & { ts: number; ingest_ts: number }

let tokenSeq = 0

/** Inserts rows of one table; `ts` and `ingest_ts` are epoch ms. */
export async function insertRows(store: Store, table: string, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return
  const columns = Object.keys(rows[0]!)
  const lines = rows.map((r) => JSON.stringify({ ...r, ts: dt(r.ts), ingest_ts: dt(r.ingest_ts) }))
  await store.insert({
    table,
    columns,
    format: 'JSONEachRow',
    data: Buffer.from(lines.join('\n') + '\n'),
    dedupToken: `asof-rows-${table}-${tokenSeq++}`
  })
}

export interface MarketSpan {
  /** first event time, epoch ms */
  readonly fromMs: number
  /** event times before this, epoch ms */
  readonly toMs: number
  /** receive time of each row: its event time plus this, ms (a live feed: seconds; an import: hours) */
  readonly lagMs: (ts: number) => number
  readonly seed: number
  /** tells rows of different writes apart (trade ids, tx hashes) */
  readonly tag: string
  /** the base asset (default BTC); its whale transfers move it and its wrapped token W<base> */
  readonly base?: string
}

/** Writes the market over [fromMs, toMs): trades every 5 min, funding/OI/long-short every 10 min, on-chain hourly, whales every 2 h. */
export async function writeMarket(store: Store, span: MarketSpan): Promise<void> {
  const rnd = mulberry32(span.seed)
  const trades: Row[] = []
  const funding: Row[] = []
  const oi: Row[] = []
  const lsr: Row[] = []
  const onchain: Row[] = []
  const whales: Row[] = []
  const asset = span.base ?? 'BTC'
  const venues = [
    { exchange: 'binance', symbol: `${asset}USDT` },
    { exchange: 'bybit', symbol: `${asset}USDT` }
  ]
  for (let t = span.fromMs; t < span.toMs; t += 5 * MINUTE) {
    const ingest = t + span.lagMs(t)
    for (const v of venues) {
      const price = 60_000 + Math.floor(rnd() * 4000) - 2000
      trades.push({
        ts: t,
        exchange: v.exchange,
        market: 'perp',
        symbol: v.symbol,
        base: asset,
        quote: 'USDT',
        side: rnd() < 0.5 ? 'buy' : 'sell',
        price,
        qty: 1 + Math.floor(rnd() * 4),
        trade_id: `${span.tag}-${t}-${v.exchange}-${asset}`,
        ingest_ts: ingest
      })
      if ((t / MINUTE) % 10 === 0) {
        const base = { ts: t, exchange: v.exchange, symbol: v.symbol, base: asset, ingest_ts: ingest }
        funding.push({ ...base, funding_rate: (Math.floor(rnd() * 200) - 60) / 1e6, interval_hours: 8 })
        const oiBase = 10_000 + Math.floor(rnd() * 2000)
        oi.push({ ...base, oi_base: oiBase, oi_usd: oiBase * 60_000 })
        lsr.push({ ...base, long_short_ratio: 0.5 + Math.floor(rnd() * 100) / 100 })
      }
    }
    if ((t / MINUTE) % 60 === 0) {
      onchain.push({
        ts: t,
        asset,
        metric: 'exchange_netflow_usd',
        value: (Math.floor(rnd() * 200) - 100) * 1e5,
        ingest_ts: ingest
      })
      onchain.push({ ts: t, asset, metric: 'mvrv', value: 1 + Math.floor(rnd() * 300) / 100, ingest_ts: ingest })
    }
    if ((t / MINUTE) % 120 === 0) {
      const wallet = `0x${(1 + Math.floor(rnd() * 5)).toString(16).padStart(40, '0')}`
      whales.push({
        ts: t,
        chain: 'ethereum',
        tx_hash: `0x${span.tag}${asset}${t.toString(16)}`,
        log_index: 0,
        block_number: Math.floor(t / 12_000),
        address: wallet,
        counterparty: `0x${'ab'.repeat(20)}`,
        event_type: rnd() < 0.5 ? 'transfer_in' : 'transfer_out',
        token: rnd() < 0.5 ? `W${asset}` : asset,
        amount: 10,
        usd_value: (5 + Math.floor(rnd() * 50)) * 100_000,
        ingest_ts: ingest
      })
    }
  }
  await insertRows(store, 'trades', trades)
  await insertRows(store, 'funding', funding)
  await insertRows(store, 'open_interest', oi)
  await insertRows(store, 'long_short', lsr)
  await insertRows(store, 'onchain_metrics', onchain)
  await insertRows(store, 'whale_transfers', whales)
}
