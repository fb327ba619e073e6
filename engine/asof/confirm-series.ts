/**
 * @module
 * `confirmSeries` on a regular grid of moments, fast: one load of the base's rows over the whole run
 * (engine/asof/series-load.ts), then at each step the books the live code uses (ScreenerBook, OnchainBook,
 * WhaleWindow) are filled with what was usable at that step and the live assembly and model run with
 * now = the step. Each step's answer equals `confirmAt` of that step: the same rows, the same books, the
 * same code. The screener book gets no quote volume and no newest-trade time here: the model reads
 * neither (engine/live/screener-book.ts `baseStats`).
 */
import { confirm, type ConfirmResult, type Direction } from '../confirm/confirm.js'
import type { Store } from '../store/store.js'
import type { NormalizedRecord } from '../records/types.js'
import { ScreenerBook } from '../live/screener-book.js'
import { OnchainBook } from '../live/onchain-book.js'
import { WhaleWindow } from '../live/whale-window.js'
import { buildConfirmInputs, type FundingHistorySource } from '../live/confirm-inputs.js'
import { firstScreenerHour } from '../live/screener-load.js'
import { FUNDING_HISTORY_MS, ONCHAIN_LOAD_MS } from '../live/books-load.js'
import { groupedRows, HOUR_MS, loadSeries, usableAt, type Group, type SeriesGrid } from './series-load.js'
import { loadCloses } from './series-closes.js'

/** How far back the newest funding, long/short and open-interest readings are looked for (screener-load.ts). */
const LATEST_MS = 2 * 86_400_000
/** The whale inputs' window. */
const WHALE_FLOW_MS = 86_400_000

/** Per market (exchange|symbol), per epoch hour: the newest reading usable at each step, by step. */
type HourIndex = Map<string, { exchange: string; symbol: string; hours: Map<number, Group[]> }>

/**
 * Groups by market and hour; each hour's list is sorted by effective step and holds, at each entry, the
 * newest reading among the groups up to it (so the value at step i is the last entry with e <= i).
 */
function index(groups: readonly Group[]): HourIndex {
  const out: HourIndex = new Map()
  for (const g of groups) {
    const k = `${g.exchange}|${g.symbol}`
    let m = out.get(k)
    if (!m) out.set(k, (m = { exchange: g.exchange, symbol: g.symbol, hours: new Map() }))
    const list = m.hours.get(g.h)
    if (list) list.push(g)
    else m.hours.set(g.h, [g])
  }
  for (const m of out.values()) {
    for (const list of m.hours.values()) {
      list.sort((a, b) => a.e - b.e)
      for (let j = 1; j < list.length; j++)
        if (list[j - 1]!.ts > list[j]!.ts) list[j] = { ...list[j - 1]!, e: list[j]!.e }
    }
  }
  return out
}

/** The newest reading of a market over hours [fromHour, toHour] usable at step i with ts >= sinceMs. */
function newest(
  hours: Map<number, Group[]> | undefined,
  fromHour: number,
  toHour: number,
  i: number,
  sinceMs: number
): Group | undefined {
  if (!hours) return undefined
  let best: Group | undefined
  for (let h = toHour; h >= fromHour; h--) {
    const g = usableAt(hours.get(h), i)
    if (g && g.ts >= sinceMs && (!best || g.ts > best.ts)) best = g
  }
  return best
}

/** The first index of `rows` (ascending by ts) with ts >= `ms`. */
function firstAtOrAfter(rows: readonly { readonly ts: number }[], ms: number): number {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (rows[mid]!.ts < ms) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The rows of `rows` (ascending by ts) with ts in [fromMs, toMs] usable at step i, in their order: the
 * window is found by binary search, so a step reads only its own rows.
 */
function usable<T extends { readonly ts: number; readonly e: number }>(
  rows: readonly T[],
  fromMs: number,
  toMs: number,
  i: number
): T[] {
  const out: T[] = []
  for (let j = firstAtOrAfter(rows, fromMs); j < rows.length && rows[j]!.ts <= toMs; j++) {
    if (rows[j]!.e <= i) out.push(rows[j]!)
  }
  return out
}

/** Whether `stepsMs` is a regular grid (ascending, equal spacing): the fast path's precondition. */
export function gridOf(stepsMs: readonly number[], knownByMs: number | undefined): SeriesGrid | null {
  if (stepsMs.length === 0) return null
  const stepMs = stepsMs.length > 1 ? stepsMs[1]! - stepsMs[0]! : 1
  if (!(stepMs > 0)) return null
  for (let i = 1; i < stepsMs.length; i++) if (stepsMs[i]! - stepsMs[i - 1]! !== stepMs) return null
  return { startMs: stepsMs[0]!, stepMs, n: stepsMs.length, knownByMs }
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
  const closesLoad = loadCloses(store, base, g, firstScreenerHour(first), windowOf, (parts) =>
    groupedRows(store, base, g, 'trades', 'price', '0', firstScreenerHour(first) * HOUR_MS, parts)
  )
  const l = await loadSeries(store, base, g, {
    oiFromMs: firstScreenerHour(first) * HOUR_MS,
    fundingFromMs: Math.min(first - LATEST_MS, Math.ceil((first - FUNDING_HISTORY_MS) / HOUR_MS) * HOUR_MS),
    lsrFromMs: first - LATEST_MS,
    onchainFromMs: first - ONCHAIN_LOAD_MS,
    whalesFromMs: first - WHALE_FLOW_MS
  })
  const closes = await closesLoad
  const oi = index(l.oi)
  const funding = index(l.funding)
  const lsr = index(l.lsr)
  const markets = new Map<string, { exchange: string; symbol: string }>()
  for (const [k, m] of closes.markets) markets.set(k, m)
  for (const ix of [oi, funding, lsr]) for (const [k, m] of ix) markets.set(k, m)

  const marketList = [...markets].map(([k, m]) => ({
    ...m,
    key: k,
    oi: oi.get(k)?.hours,
    funding: funding.get(k)?.hours,
    lsr: lsr.get(k)?.hours
  }))
  const out: ConfirmResult[] = []
  for (let i = 0; i < g.n; i++) {
    const t = g.startMs + i * g.stepMs
    const nowHour = Math.floor(t / HOUR_MS)
    const fromHour = firstScreenerHour(t)
    const screener = new ScreenerBook()
    const latest: NormalizedRecord[] = []
    const latestFrom = Math.floor((t - LATEST_MS) / HOUR_MS)
    for (const m of marketList) {
      for (let h = fromHour; h <= nowHour; h++) {
        const c = closes.close(m.key, h, i)
        const o = usableAt(m.oi?.get(h), i)
        if (c !== undefined || o) screener.loadHour(m.exchange, m.symbol, base, h, o ? o.a : null, 0, c ?? null)
      }
      const mk = { exchange: m.exchange, symbol: m.symbol, base }
      const f = newest(m.funding, latestFrom, nowHour, i, t - LATEST_MS)
      if (f)
        latest.push({ kind: 'funding', ts: f.ts, ...mk, funding_rate: f.a, interval_hours: f.b } as NormalizedRecord)
      const r = newest(m.lsr, latestFrom, nowHour, i, t - LATEST_MS)
      if (r) latest.push({ kind: 'long_short', ts: r.ts, ...mk, long_short_ratio: r.a } as NormalizedRecord)
      const o = newest(m.oi, latestFrom, nowHour, i, t - LATEST_MS)
      if (o) latest.push({ kind: 'open_interest', ts: o.ts, ...mk, oi_base: 0, oi_usd: o.a } as NormalizedRecord)
    }
    // the store's order of the newest readings: funding, long/short, open interest
    const kindOrder = { funding: 0, long_short: 1, open_interest: 2 } as Record<string, number>
    latest.sort((a, b) => kindOrder[a.kind]! - kindOrder[b.kind]!)
    screener.loadLatest(latest)
    const onchain = new OnchainBook()
    onchain.apply(usable(l.onchain, t - ONCHAIN_LOAD_MS, t, i))
    const whales = new WhaleWindow()
    whales.reset(usable(l.whales, t - WHALE_FLOW_MS, t, i))
    const history: FundingHistorySource = {
      get: (exchange, symbol) => {
        const hours = funding.get(`${exchange}|${symbol}`)?.hours
        const rates: number[] = []
        if (!hours) return Promise.resolve(rates)
        const firstHour = Math.ceil((t - FUNDING_HISTORY_MS) / HOUR_MS)
        for (let h = firstHour; h <= nowHour; h++) {
          const x = usableAt(hours.get(h), i)
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
