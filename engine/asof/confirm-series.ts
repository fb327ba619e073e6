/**
 * @module
 * `confirmSeries` on a regular grid of moments, fast: one load of the base's rows over the whole run
 * (engine/asof/series-load.ts, series-closes.ts), then one pass over the steps in order. Each table's
 * grouped readings are swept once (engine/asof/series-readings.ts: per market, the newest reading of each
 * hour and of all usable at the step), the on-chain and whale rows through windows that slide with the
 * step (series-window.ts), and at each step the books the live code uses (ScreenerBook, OnchainBook,
 * WhaleWindow) are filled with what `confirmAt` would load and the live assembly and model run with now =
 * the step. So each step's answer equals `confirmAt` of that step: the same readings, the same books, the
 * same code, the same order of every sum.
 *
 * The screener book gets, per market, only what `baseStats` (engine/live/screener-book.ts) reads: the
 * hour 24 h back (open interest and close), the last price (the newest hour with a close in the 49-hour
 * window), and the newest funding, long/short and open interest; a market with only open interest in the
 * window is listed by its newest hour, as a full load lists it. No quote volume and no newest-trade time:
 * the model reads neither.
 */
import { confirm, type ConfirmResult, type Direction } from '../confirm/confirm.js'
import type { Store } from '../store/store.js'
import type { NormalizedRecord, WhaleTransferRecord } from '../records/types.js'
import { ScreenerBook } from '../live/screener-book.js'
import { OnchainBook } from '../live/onchain-book.js'
import { WhaleWindow } from '../live/whale-window.js'
import { buildConfirmInputs } from '../live/confirm-inputs.js'
import type { FundingHistorySource } from '../live/funding-history.js'
import { firstScreenerHour } from '../live/screener-load.js'
import { FUNDING_HISTORY_MS, ONCHAIN_LOAD_MS } from '../live/books-load.js'
import {
  groupedRows,
  HOUR_MS,
  loadOnchain,
  loadReadings,
  loadWhales,
  type SeriesGrid,
  type SeriesWindows
} from './series-load.js'
import { loadCloses, type SeriesCloses } from './series-closes.js'
import { ReadingSweep, type MarketReadings } from './series-readings.js'
import { SlidingRows } from './series-window.js'

/** How far back the newest funding, long/short and open-interest readings are looked for (screener-load.ts). */
const LATEST_MS = 2 * 86_400_000
/** The whale inputs' window. */
const WHALE_FLOW_MS = 86_400_000
/** baseStats compares the open interest and price with those of the hour this many hours back */
const AGO_HOURS = 24
/** the store's order of the newest readings (screener-load.ts): funding, long/short, open interest */
const KIND_ORDER: Readonly<Record<string, number>> = { funding: 0, long_short: 1, open_interest: 2 }

/** Whether `stepsMs` is a regular grid (ascending, equal spacing): the fast path's precondition. */
export function gridOf(stepsMs: readonly number[], knownByMs: number | undefined): SeriesGrid | null {
  if (stepsMs.length === 0) return null
  const stepMs = stepsMs.length > 1 ? stepsMs[1]! - stepsMs[0]! : 1
  if (!(stepMs > 0)) return null
  for (let i = 1; i < stepsMs.length; i++) if (stepsMs[i]! - stepsMs[i - 1]! !== stepMs) return null
  return { startMs: stepsMs[0]!, stepMs, n: stepsMs.length, knownByMs }
}

/** One market of the run: its name and its swept readings of each table (undefined: none). */
interface SeriesMarket {
  readonly key: string
  readonly exchange: string
  readonly symbol: string
  readonly oi: MarketReadings | undefined
  readonly funding: MarketReadings | undefined
  readonly lsr: MarketReadings | undefined
}

/** What a step reads besides the market: the base, the run's closes, the open interest sweep, the step. */
interface StepContext {
  readonly base: string
  readonly closes: SeriesCloses
  readonly oi: ReadingSweep
  /** step index and moment, epoch ms */
  readonly i: number
  readonly t: number
}

/**
 * Loads market `m` at step `s` into `screener` (hourly figures) and `latest` (newest readings) as
 * `baseStats` reads them: the hour 24 h back, the last price (the newest hour with a close in the window),
 * the newest funding, long/short and open interest of the last LATEST_MS.
 */
function loadMarket(screener: ScreenerBook, latest: NormalizedRecord[], s: StepContext, m: SeriesMarket): void {
  const { base, closes, i, t } = s
  const nowHour = Math.floor(t / HOUR_MS)
  const fromHour = firstScreenerHour(t)
  const agoHour = nowHour - AGO_HOURS
  const cAgo = closes.close(m.key, agoHour, i)
  const oAgo = s.oi.at(m.oi, agoHour)
  if (cAgo !== undefined || oAgo) {
    screener.loadHour(m.exchange, m.symbol, base, agoHour, oAgo ? oAgo.a : null, 0, cAgo ?? null)
  }
  let lastHour = nowHour
  let last = closes.close(m.key, lastHour, i)
  while (last === undefined && lastHour > fromHour) last = closes.close(m.key, --lastHour, i)
  const o = m.oi?.newest
  if (last !== undefined) {
    if (lastHour !== agoHour) screener.loadHour(m.exchange, m.symbol, base, lastHour, null, 0, last)
  } else if (!oAgo && o && o.h >= fromHour) {
    // open interest in the window and no close: the market is listed, as a full load lists it
    screener.loadHour(m.exchange, m.symbol, base, o.h, o.a, 0, null)
  }
  const sinceMs = t - LATEST_MS
  const mk = { exchange: m.exchange, symbol: m.symbol, base }
  const f = m.funding?.newest
  if (f && f.ts >= sinceMs) {
    latest.push({ kind: 'funding', ts: f.ts, ...mk, funding_rate: f.a, interval_hours: f.b } as NormalizedRecord)
  }
  const r = m.lsr?.newest
  if (r && r.ts >= sinceMs)
    latest.push({ kind: 'long_short', ts: r.ts, ...mk, long_short_ratio: r.a } as NormalizedRecord)
  if (o && o.ts >= sinceMs) {
    latest.push({ kind: 'open_interest', ts: o.ts, ...mk, oi_base: 0, oi_usd: o.a } as NormalizedRecord)
  }
}

export async function confirmGrid(
  store: Store,
  base: string,
  direction: Direction,
  g: SeriesGrid
): Promise<ConfirmResult[]> {
  const first = g.startMs
  const windowOf = (i: number): readonly [number, number] => {
    const t = g.startMs + i * g.stepMs
    return [firstScreenerHour(t), Math.floor(t / HOUR_MS)]
  }
  const windows: SeriesWindows = {
    oiFromMs: firstScreenerHour(first) * HOUR_MS,
    fundingFromMs: Math.min(first - LATEST_MS, Math.ceil((first - FUNDING_HISTORY_MS) / HOUR_MS) * HOUR_MS),
    lsrFromMs: first - LATEST_MS,
    onchainFromMs: first - ONCHAIN_LOAD_MS,
    whalesFromMs: first - WHALE_FLOW_MS
  }
  // two lanes of reads, one per store session at the least: the closes (ledger and candles, then the trades
  // they leave open: a dependent read, so first in its lane) then the whale rows; the readings (the largest
  // read) then the on-chain rows. Each lane has one read in flight, so no read queues ahead of the trades.
  const laneA = (async () => {
    const closes = await loadCloses(store, base, g, firstScreenerHour(first), windowOf, (parts) =>
      groupedRows(store, base, g, 'trades', 'price', '0', firstScreenerHour(first) * HOUR_MS, parts)
    )
    return { closes, whales: await loadWhales(store, base, g, windows) }
  })()
  const laneB = (async () => {
    const readings = await loadReadings(store, base, g, windows)
    return { ...readings, onchain: await loadOnchain(store, base, g, windows) }
  })()
  const [{ closes, whales: whaleList }, l] = await Promise.all([laneA, laneB])
  const oi = new ReadingSweep(l.oi)
  const funding = new ReadingSweep(l.funding)
  const lsr = new ReadingSweep(l.lsr)
  const names = new Map<string, { exchange: string; symbol: string }>(closes.markets)
  for (const sweep of [oi, funding, lsr])
    for (const [k, m] of sweep.markets) names.set(k, { exchange: m.exchange, symbol: m.symbol })
  const markets: SeriesMarket[] = [...names].map(([key, m]) => ({
    ...m,
    key,
    oi: oi.markets.get(key),
    funding: funding.markets.get(key),
    lsr: lsr.markets.get(key)
  }))
  const onchainRows = new SlidingRows(l.onchain, ONCHAIN_LOAD_MS)
  const whaleRows = new SlidingRows(whaleList, WHALE_FLOW_MS)
  const out: ConfirmResult[] = []
  // one book over the run, emptied at each step (its markets' rings are kept): each step fills it anew
  const screener = new ScreenerBook()
  for (let i = 0; i < g.n; i++) {
    const t = g.startMs + i * g.stepMs
    const nowHour = Math.floor(t / HOUR_MS)
    oi.advance(i)
    funding.advance(i)
    lsr.advance(i)
    screener.reset()
    const latest: NormalizedRecord[] = []
    const step: StepContext = { base, closes, oi, i, t }
    for (const m of markets) loadMarket(screener, latest, step, m)
    // the store's order of the newest readings: funding, long/short, open interest
    latest.sort((a, b) => KIND_ORDER[a.kind]! - KIND_ORDER[b.kind]!)
    screener.loadLatest(latest)
    const onchain = new OnchainBook()
    onchain.apply(onchainRows.at(t, i))
    const whales = new WhaleWindow()
    // the rows flows24h reads (series-load.ts WhaleFlowRow): the window reads no other field
    whales.reset(whaleRows.at(t, i) as unknown as WhaleTransferRecord[])
    const history: FundingHistorySource = {
      get: (exchange, symbol) => {
        const m = funding.markets.get(`${exchange}|${symbol}`)
        const rates: number[] = []
        if (!m) return Promise.resolve(rates)
        for (let h = Math.ceil((t - FUNDING_HISTORY_MS) / HOUR_MS); h <= nowHour; h++) {
          const x = funding.at(m, h)
          if (x) rates.push(x.a)
        }
        return Promise.resolve(rates)
      }
    }
    const inputs = await buildConfirmInputs(base, t, { screener, onchain, whales, fundingHistory: history })
    out.push(confirm(base, direction, inputs, t))
  }
  return out
}
