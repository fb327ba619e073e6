/**
 * One chain at T (engine/options/chain-at.ts) for the live chain, `as_of` and `/v1/options/history`, over a
 * day of demo-market ETH quotes (one whole-chain snapshot a minute, 1,440 minutes, so the day holds one
 * 08:00 UTC expiry and one 00:00 UTC strike-grid change: instruments listed and delisted) pushed through
 * admin ingest into a real server:
 * - at every minute, the live book fed the quotes in order and the history point of that minute agree to the
 *   last digit, and so does the `as_of` chain at every 30th minute and at each minute around 00:00 and 08:00;
 * - the live chain recorded after each ingest (three hours of snapshots) equals `as_of` the recording moment after a newer
 *   snapshot and a late import with old event times arrived, and after a rebuild of the live state.
 * The quotes keep instruments expiring within 2 days of the day's start (dailies) at strikes that are
 * multiples of 50, so the day stays ~60k quotes; the seed is the first whose 00:00 grid change lists or delists an instrument.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody, startTestServer } from '../helpers/server.js'
import { OptionsBook } from '../../engine/live/options-book.js'
import { chainMetrics, type ChainSummary } from '../../engine/options/chain-summary.js'
import { roundTo, widenDecimals } from '../../engine/options/decimal-sums.js'
import { parseInstrument } from '../../engine/options/instrument.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'
import { createOptions } from '../../ingest/sources/sim/options.js'
import { mixSeed } from '../../ingest/sources/sim/hash-rng.js'
import { PricePath } from '../../ingest/sources/sim/price-path.js'
import { RecordSink } from '../../ingest/sources/sim/record-sink.js'
import { UNIVERSE } from '../../ingest/sources/sim/universe.js'

const MIN = 60_000
const DAY = 86_400_000
/** the day: the 1,440 minutes ending with the last whole minute before the test started */
const END = Math.floor(Date.now() / MIN) * MIN - MIN
const START = END - DAY + MIN
const MINUTES = Array.from({ length: 1440 }, (_, i) => START + i * MIN)
const EXPIRY_CUTOFF = START + 2 * DAY
/** snapshots ingested per admin ingest body, and so between two recorded live answers */
const BODY_MS = 3 * 3_600_000

/** ETH quotes of the demo market's minute snapshots in [from, to): expiring before the cutoff, strikes of 50 */
function ethQuotes(seed: number, from: number, to: number): OptionQuoteRecord[] {
  const s = mixSeed(seed)
  const options = createOptions({ seed: s, universe: UNIVERSE, path: new PricePath(s, UNIVERSE.bases) })
  const sink = new RecordSink(1 << 20)
  for (let t = from; t < to; t += 3_600_000) options.emit(t, Math.min(to, t + 3_600_000), 'live', sink)
  const out: OptionQuoteRecord[] = []
  for (const chunk of [...sink.takeFull(), sink.takeRest() ?? []]) {
    for (const r of chunk) {
      if (r.kind !== 'option_quote' || !r.instrument.startsWith('ETH-')) continue
      const i = parseInstrument(r.instrument)!
      if (i.expiryMs < EXPIRY_CUTOFF && i.strike % 50 === 0) out.push(r)
    }
  }
  return out
}

const names = (qs: readonly OptionQuoteRecord[], ts: number): Set<string> =>
  new Set(qs.filter((q) => q.ts === ts).map((q) => q.instrument))

/** the first seed whose 00:00 UTC snapshot lists or delists an instrument against the minute before */
function seedWithGridChange(): number {
  const midnight = Math.ceil(START / DAY) * DAY
  for (let seed = 1; ; seed++) {
    const qs = ethQuotes(seed, midnight - MIN, midnight + MIN)
    const before = names(qs, midnight - MIN)
    const after = names(qs, midnight)
    if ([...after].some((n) => !before.has(n)) || [...before].some((n) => !after.has(n))) return seed
  }
}

let srv: Awaited<ReturnType<typeof startTestServer>>
let quotes: OptionQuoteRecord[]
/** live chains recorded after each ingest, with the moment each was answered by */
const recorded: { at: number; body: ChainSummary }[] = []

const get = async (path: string): Promise<any> => jsonBody(await fetch(`${srv.base}${path}`))
/** an as_of answer without its point_in_time member: the live answer's shape */
const withoutPit = (b: Record<string, unknown>): Record<string, unknown> => {
  const rest = { ...b }
  delete rest['point_in_time']
  return rest
}

beforeAll(async () => {
  quotes = ethQuotes(seedWithGridChange(), START, END + MIN)
  srv = await startTestServer({ PUBLIC_RATE_PER_MIN: '100000' })
  // three hours of snapshots a body (~8k quotes): whole snapshots, few enough for the live state to apply them
  for (let h = START; h <= END; h += BODY_MS) {
    await ingestRecords(
      srv.base,
      'option_quote',
      quotes.filter((q) => q.ts >= h && q.ts < h + BODY_MS)
    )
    const body = await get('/v1/options/chain?currency=ETH')
    recorded.push({ at: Date.now(), body })
  }
}, 600_000)

afterAll(async () => {
  await srv?.stop()
})

/** total_oi as /v1/options/history adds it (engine/options/history-query.ts) */
function totalOi(s: ChainSummary): number {
  return roundTo(s.total_call_oi + s.total_put_oi, widenDecimals(widenDecimals(0, s.total_call_oi), s.total_put_oi))
}

describe('the chain at T, one definition', () => {
  it('the day lists and delists instruments (an expiry and a grid change)', () => {
    const first = names(quotes, START)
    const last = names(quotes, END)
    expect([...first].some((n) => !last.has(n))).toBe(true)
    expect([...last].some((n) => !first.has(n))).toBe(true)
    expect(new Set(quotes.map((q) => q.ts)).size).toBe(MINUTES.length)
  })

  it('live book, as_of chain and history agree at every minute of the day', async () => {
    const knownBy = Date.now()
    const history: Record<string, Map<number, number | null>> = {}
    for (const metric of ['pcr_oi', 'total_oi', 'max_pain']) {
      const body = await get(`/v1/options/history?currency=ETH&metric=${metric}&hours=25`)
      expect(body.resolution).toBe('snapshot')
      history[metric] = new Map(body.points.map((p: { ts: number; value: number | null }) => [p.ts, p.value]))
    }
    const book = new OptionsBook()
    const byTs = new Map<number, OptionQuoteRecord[]>()
    for (const q of quotes) {
      let l = byTs.get(q.ts)
      if (!l) byTs.set(q.ts, (l = []))
      l.push(q)
    }
    const asOf = new Map<number, ChainSummary>()
    const nearBoundary = (m: number): boolean =>
      [0, 8].some(
        (h) => Math.abs(((m - h * 3_600_000) % DAY) - 0) <= 2 * MIN || (m - h * 3_600_000) % DAY >= DAY - 2 * MIN
      )
    const sampled = MINUTES.filter((m, i) => i % 30 === 0 || nearBoundary(m))
    for (let i = 0; i < sampled.length; i += 4) {
      await Promise.all(
        sampled.slice(i, i + 4).map(async (m) => {
          const body = await get(`/v1/options/chain?currency=ETH&as_of=${m}&known_by=${knownBy}`)
          asOf.set(m, withoutPit(body) as unknown as ChainSummary)
        })
      )
    }
    let expiryPassed = false
    let nearest: string | null = null
    for (const m of MINUTES) {
      book.apply(byTs.get(m)!)
      const live = JSON.parse(book.chainJson('ETH', m).toString()) as ChainSummary
      if (asOf.has(m)) expect(asOf.get(m), `as_of ${new Date(m).toISOString()}`).toEqual(live)
      const metrics = chainMetrics(live)
      const s = m / 1000
      expect(history['pcr_oi']!.get(s), `pcr_oi ${new Date(m).toISOString()}`).toBe(live.pcr_oi)
      expect(history['total_oi']!.get(s), `total_oi ${new Date(m).toISOString()}`).toBe(totalOi(live))
      expect(history['max_pain']!.get(s), `max_pain ${new Date(m).toISOString()}`).toBe(metrics.max_pain_nearest)
      if (nearest !== null && metrics.nearest_expiry !== nearest) expiryPassed = true
      nearest = metrics.nearest_expiry
    }
    expect(expiryPassed).toBe(true)
    expect(sampled.filter(nearBoundary).length).toBe(10)
  }, 600_000)

  it('as_of each recorded moment equals the recorded live chain after newer quotes, a late import and a rebuild', async () => {
    expect(recorded).toHaveLength(8)
    const hourlyBefore = await get('/v1/options/history?currency=ETH&metric=pcr_oi&hours=72')
    expect(hourlyBefore.resolution).toBe('1h')
    // a newer snapshot, and a late import of snapshots between the recorded ones (old event times, new OI)
    const newest = Math.floor(Date.now() / 1000) * 1000
    const last = quotes.filter((q) => q.ts === END)
    await ingestRecords(
      srv.base,
      'option_quote',
      last.map((q) => ({ ...q, ts: newest }))
    )
    // the last 30 s of each recorded snapshot's hour: after the hour's last minute snapshot, so the hour's value moves
    const late = recorded
      .map((r) => Math.floor(r.body.updated / 3600) * 3_600_000 + 3_600_000 - 30_000)
      .filter((ts) => ts < END)
    await ingestRecords(
      srv.base,
      'option_quote',
      late.flatMap((ts) => last.map((q) => ({ ...q, ts, open_interest: q.open_interest + 1 })))
    )
    await srv.running.ctx.live.requestRebuild()
    for (const r of recorded) {
      const body = await get(`/v1/options/chain?currency=ETH&as_of=${r.at}`)
      expect(withoutPit(body)).toEqual(r.body)
      expect(body.point_in_time.known_by).toBe(new Date(r.at).toISOString())
    }
    // what is known now about a recorded moment includes the late import
    const now = await get(`/v1/options/chain?currency=ETH&as_of=${recorded[0]!.at}&known_by=${Date.now()}`)
    expect(now.total_call_oi).not.toBe(recorded[0]!.body.total_call_oi)
    // the rebuilt live chain is the newest snapshot; known_by bounds the history too
    const live = await get('/v1/options/chain?currency=ETH')
    expect(live.updated).toBe(newest / 1000)
    const all = await get(`/v1/options/history?currency=ETH&metric=pcr_oi&hours=25`)
    const before = await get(`/v1/options/history?currency=ETH&metric=pcr_oi&hours=25&known_by=${recorded.at(-1)!.at}`)
    expect(all.points.length).toBe(before.points.length + 1 + late.length)
    expect(before.points.map((p: { ts: number }) => p.ts)).toEqual(MINUTES.map((m) => m / 1000))
    // beyond 48 hours known_by reads the last snapshot of each hour from the snapshot rows: the roll-up as it was
    const hourlyKnown = await get(
      `/v1/options/history?currency=ETH&metric=pcr_oi&hours=72&known_by=${recorded.at(-1)!.at}`
    )
    expect(hourlyKnown).toEqual(hourlyBefore)
    const hourlyNow = await get('/v1/options/history?currency=ETH&metric=pcr_oi&hours=72')
    expect(hourlyNow.points).not.toEqual(hourlyBefore.points)
  }, 300_000)
})
