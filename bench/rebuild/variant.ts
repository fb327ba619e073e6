/**
 * @module
 * One live-state rebuild run in its own process and data directory (chDB binds one directory per process):
 * `node dist/bench/rebuild/variant.js <dataDir> <trades> <rebuilds>`. Prints one JSON line.
 *
 * The store gets `trades` perpetual trades spread over the last 24 hours on the demo market's ~520 markets
 * (bulk inserts, as a backfill or replay writes them), plus hourly funding, open interest and long/short of
 * every market. Then a producer writes live trades through the ingest pipeline (server defaults: 50,000-row
 * batches, 1 s flush, 500,000 queued rows, journal) at PRODUCER_TRADES_PER_S, and the live state is rebuilt
 * `rebuilds` times, one second apart, with the stream's candle book reseeded as in the server. Each rebuild
 * is timed from the request to the end (write hold, wait for the rows queued before it, store reads, replay,
 * observers); `drain_ms` is the wait for the rows queued before the hold.
 */
import path from 'node:path'
import { LiveState } from '../../engine/live/live-state.js'
import { silentLogger } from '../../engine/log.js'
import { columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { NormalizedRecord, RecordKind, TradeRecord } from '../../engine/records/types.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { CandleBook } from '../../engine/stream/candle-book.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { UNIVERSE } from '../../ingest/sources/sim/universe.js'
import { median } from '../stats.js'

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
/** rows per bulk insert of the preload (the server's INGEST_BULK_BATCH_ROWS) */
const LOAD_BATCH = 250_000
/** live trades per second the producer writes during the rebuilds: a busy feed of every venue at once */
const PRODUCER_TRADES_PER_S = 2_000
/** the producer's pace: one chunk per tick */
const PRODUCER_TICK_MS = 50
const MARKETS = UNIVERSE.markets

/** Deterministic trade `i` of `n` spread over [from, from + DAY_MS). */
function trade(i: number, n: number, from: number, idPrefix: string): TradeRecord {
  const m = MARKETS[(i * 7919) % MARKETS.length]!
  const jitter = 1 + (((i * 2654435761) >>> 0) % 2001) / 100_000 - 0.01
  return {
    kind: 'trade',
    ts: from + Math.floor((i / n) * DAY_MS),
    exchange: m.exchange,
    market: 'perp',
    symbol: m.symbol,
    base: m.base,
    quote: 'USDT',
    side: i % 2 ? 'buy' : 'sell',
    price: m.refPrice * jitter,
    qty: 1 + (i % 9),
    trade_id: `${idPrefix}${i}`
  }
}

/** Hourly funding, open interest and long/short readings of every market over the last 49 hours. */
function readings(now: number): NormalizedRecord[] {
  const out: NormalizedRecord[] = []
  for (let t = Math.floor(now / HOUR_MS) * HOUR_MS - 48 * HOUR_MS; t < now; t += HOUR_MS) {
    for (const m of MARKETS) {
      const id = { exchange: m.exchange, symbol: m.symbol, base: m.base }
      out.push({ kind: 'funding', ts: t, ...id, funding_rate: 0.0001, interval_hours: m.intervalHours })
      out.push({ kind: 'open_interest', ts: t, ...id, oi_base: 1000, oi_usd: 1000 * m.refPrice })
      out.push({ kind: 'long_short', ts: t, ...id, long_short_ratio: 1.1 })
    }
  }
  return out
}

async function insertAll(store: ChdbStore, kind: RecordKind, records: NormalizedRecord[], token: string) {
  await store.insert({
    table: kind === 'trade' ? 'trades' : kind,
    columns: columnsOf(kind),
    format: 'TSV',
    data: Buffer.from(encodeTsv(kind, records as never[])),
    dedupToken: token,
    foldKeys: true
  })
}

async function preload(store: ChdbStore, n: number, now: number): Promise<number> {
  const t0 = performance.now()
  // the day ends two minutes ago: the producer's live trades follow
  const from = now - DAY_MS - 120_000
  for (let i = 0; i < n; i += LOAD_BATCH) {
    const batch: TradeRecord[] = []
    for (let j = i; j < Math.min(n, i + LOAD_BATCH); j++) batch.push(trade(j, n, from, 'p'))
    await insertAll(store, 'trade', batch, `preload:${i}`)
  }
  const byKind = new Map<RecordKind, NormalizedRecord[]>()
  for (const r of readings(now)) {
    const rs = byKind.get(r.kind)
    if (rs) rs.push(r)
    else byKind.set(r.kind, [r])
  }
  for (const [kind, rs] of byKind) await insertAll(store, kind, rs, `readings:${kind}`)
  return performance.now() - t0
}

async function main(): Promise<void> {
  const [dir, tradesArg, rebuildsArg] = process.argv.slice(2) as [string, string, string]
  const n = Number(tradesArg)
  const rebuilds = Number(rebuildsArg)
  const store = new ChdbStore({ path: dir, poolSize: 4 })
  await migrate(store, {})
  const now = Date.now()
  const loadMs = await preload(store, n, now)

  const pipeline = new IngestPipeline(
    store,
    { batchRows: 50_000, flushMs: 1000, queueRows: 500_000 },
    silentLogger(),
    new BatchJournal(path.join(dir, 'journal'))
  )
  const live = new LiveState(store)
  pipeline.live = live
  let drainMs = 0
  live.writes = {
    hold: async () => {
      const h = await pipeline.hold()
      const t0 = performance.now()
      return { ...h, drained: h.drained.then(() => void (drainMs = performance.now() - t0)) }
    }
  }
  // the push stream's candle book is reseeded at every rebuild (engine/stream/kinds/candles.ts)
  const candles = new CandleBook()
  live.observe({
    apply: (records) =>
      candles.apply(
        records,
        () => false,
        () => undefined
      ),
    rebuilt: () => candles.seed(store, Date.now())
  })

  let produced = 0
  let producing = true
  const lane = pipeline.lane()
  const perTick = (PRODUCER_TRADES_PER_S * PRODUCER_TICK_MS) / 1000
  const producer = (async () => {
    while (producing) {
      const t = Date.now()
      const records: TradeRecord[] = []
      for (let j = 0; j < perTick; j++) records.push({ ...trade(produced + j, 1, t, 'l'), ts: t })
      for (const item of [...encodeRecords(records, false), { live: true as const, records }]) await lane.push(item)
      produced += perTick
      await new Promise((r) => setTimeout(r, PRODUCER_TICK_MS))
    }
  })()

  await live.rebuild() // warm-up, not timed
  const totals: number[] = []
  const drains: number[] = []
  for (let r = 0; r < rebuilds; r++) {
    await new Promise((res) => setTimeout(res, 1000))
    const t0 = performance.now()
    await live.rebuild()
    totals.push(Math.round(performance.now() - t0))
    drains.push(Math.round(drainMs))
  }
  producing = false
  await producer
  await pipeline.close(Date.now() + 30_000)
  const [check] = await store.query<{ n: number }>(
    'SELECT count() AS n FROM trades WHERE ts >= now64(3) - INTERVAL 25 HOUR'
  )
  process.stdout.write(
    JSON.stringify({
      trades: n,
      trades_in_store: Number(check!.n),
      produced,
      load_ms: Math.round(loadMs),
      rebuild_ms: totals,
      drain_ms: drains,
      median_rebuild_ms: median(totals),
      median_drain_ms: median(drains),
      rebuild_errors: live.counters.rebuild_errors
    }) + '\n'
  )
  process.exit(0)
}
void main()
