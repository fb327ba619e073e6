import { describe, expect, it } from 'vitest'
import { parseInstrument } from '../../engine/options/instrument.js'
import { validateRecord } from '../../engine/records/validate.js'
import { CHAINS, type NormalizedRecord, type RecordKind, type RecordOf } from '../../engine/records/types.js'
import { CHUNK_RECORDS, createSimMarket, type SimMarket, type SimMode } from '../../ingest/sources/sim/sim-market.js'

const SEED = 20250310
const HOUR = 3_600_000
const DAY = 24 * HOUR
/** a Monday, 00:00 UTC */
const T0 = Date.UTC(2025, 2, 10)
const KINDS: readonly RecordKind[] = [
  'trade',
  'funding',
  'open_interest',
  'long_short',
  'liquidation',
  'option_quote',
  'whale_transfer',
  'onchain_metric'
]

function collect(sim: SimMarket, from: number, to: number, mode: SimMode): NormalizedRecord[] {
  const out: NormalizedRecord[] = []
  for (const chunk of sim.generate(from, to, mode)) {
    expect(chunk.length).toBeGreaterThan(0)
    expect(chunk.length).toBeLessThanOrEqual(CHUNK_RECORDS)
    for (const r of chunk) out.push(r)
  }
  return out
}

function ofKind<K extends RecordKind>(records: readonly NormalizedRecord[], kind: K): RecordOf<K>[] {
  return records.filter((r): r is RecordOf<K> => r.kind === kind)
}

/** records as sorted JSON lines: equal multisets give equal arrays */
function multiset(records: readonly NormalizedRecord[]): string[] {
  return records.map((r) => JSON.stringify(r)).sort()
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const it of items) {
    const k = key(it)
    const list = m.get(k)
    if (list) list.push(it)
    else m.set(k, [it])
  }
  return m
}

// one day of backfill, generated once and shared by the checks below; also the throughput measurement
// (printed, not asserted): cold = first day in a fresh process, warm = the next day once the JIT has run
const day = (() => {
  const sim = createSimMarket(SEED)
  const started = performance.now()
  const records = collect(sim, T0, T0 + DAY, 'backfill')
  const coldMs = performance.now() - started
  const warmStarted = performance.now()
  let warmCount = 0
  for (const chunk of sim.generate(T0 + DAY, T0 + 2 * DAY, 'backfill')) warmCount += chunk.length
  const warmMs = performance.now() - warmStarted
  const perDay = Object.fromEntries(KINDS.map((k) => [k, ofKind(records, k).length]))
  const rate = (n: number, ms: number) => `${((n / ms) * 1000).toFixed(0)} records/s`
  console.log(
    `sim seed ${SEED}: 1-day backfill ${records.length} records: cold ${coldMs.toFixed(0)} ms = ` +
      `${rate(records.length, coldMs)}, warm ${warmMs.toFixed(0)} ms = ${rate(warmCount, warmMs)}; ` +
      `per day ${JSON.stringify(perDay)}; 30 days ~ ${(records.length * 30).toLocaleString('en')} records`
  )
  return { sim, records }
})()

describe('sim market: determinism and additivity', () => {
  it('gives identical records in identical order for the same seed and window', () => {
    const a = collect(createSimMarket(SEED), T0 + 5 * HOUR, T0 + 11 * HOUR, 'backfill')
    const b = collect(createSimMarket(SEED), T0 + 5 * HOUR, T0 + 11 * HOUR, 'backfill')
    expect(b.length).toBe(a.length)
    const firstDiff = a.findIndex((r, i) => JSON.stringify(r) !== JSON.stringify(b[i]))
    expect(firstDiff, `seed ${SEED}: first differing record`).toBe(-1)
    const liveA = collect(createSimMarket(SEED), T0 + 90_000, T0 + 150_000, 'live')
    const liveB = collect(createSimMarket(SEED), T0 + 90_000, T0 + 150_000, 'live')
    expect(liveB).toEqual(liveA)
  })

  it('gives different data for different seeds', () => {
    const a = ofKind(collect(createSimMarket(1), T0, T0 + HOUR, 'backfill'), 'trade')
    const b = ofKind(collect(createSimMarket(2), T0, T0 + HOUR, 'backfill'), 'trade')
    const same = new Set(multiset(a))
    const shared = multiset(b).filter((line) => same.has(line)).length
    expect(shared).toBeLessThan(b.length / 100)
    expect(createSimMarket(1).price('BTC', T0)).not.toBe(createSimMarket(2).price('BTC', T0))
  })

  it('is additive in backfill: [a,b) + [b,c) = [a,c), at unaligned split points', () => {
    const sim = createSimMarket(SEED)
    const a = T0 + 22 * HOUR
    const c = a + 4 * HOUR
    // ~17-minute pieces: many cut through wash loops (up to 10 minutes long) and through hour blocks
    const splits = [a]
    for (let t = a + 1_021_357; t < c; t += 1_021_357) splits.push(t)
    splits.push(c)
    const parts: NormalizedRecord[] = []
    for (let i = 0; i + 1 < splits.length; i++) parts.push(...collect(sim, splits[i]!, splits[i + 1]!, 'backfill'))
    const whole = collect(createSimMarket(SEED), a, c, 'backfill')
    expect(parts.length).toBe(whole.length)
    expect(multiset(parts)).toEqual(multiset(whole))
  })

  it('is additive in live mode over consecutive 1 s windows across an hour boundary', () => {
    const sim = createSimMarket(SEED)
    const a = T0 + 3 * HOUR - 45_000
    const parts: NormalizedRecord[] = []
    for (let t = a; t < a + 90_000; t += 1_000) parts.push(...collect(sim, t, t + 1_000, 'live'))
    const whole = collect(createSimMarket(SEED), a, a + 90_000, 'live')
    expect(multiset(parts)).toEqual(multiset(whole))
    // live densities: ~1 trade/s on each of the 30 top markets; funding, OI and long-short at 03:00:00 only
    expect(ofKind(whole, 'trade').length).toBeGreaterThan(30 * 80)
    for (const kind of ['funding', 'open_interest', 'long_short'] as const) {
      expect(ofKind(whole, kind).length, kind).toBe(sim.markets.length)
    }
    // one snapshot (at the minute boundary) of both chains
    expect(ofKind(whole, 'option_quote').length).toBeGreaterThan(1000)
  })

  it('rejects bad arguments at call time', () => {
    const sim = createSimMarket(SEED)
    expect(() => sim.generate(Number.NaN, T0, 'backfill')).toThrow(RangeError)
    expect(() => sim.generate(T0, T0 + 1, 'fast' as SimMode)).toThrow(RangeError)
    expect(() => sim.price('NOPE', T0)).toThrow(RangeError)
    expect(() => createSimMarket(1.5)).toThrow(RangeError)
    expect([...sim.generate(T0, T0, 'live')]).toEqual([])
  })
})

describe('sim market: universe and price path', () => {
  it('lists >= 150 bases and >= 500 perpetuals, with 1 h and 8 h funding on every venue', () => {
    const { markets } = day.sim
    expect(new Set(markets.map((m) => m.base)).size).toBeGreaterThanOrEqual(150)
    expect(markets.length).toBeGreaterThanOrEqual(500)
    expect(new Set(markets.map((m) => `${m.exchange}:${m.symbol}`)).size).toBe(markets.length)
    for (const exchange of ['binance', 'bybit', 'okx'] as const) {
      const venue = markets.filter((m) => m.exchange === exchange)
      expect(
        venue.some((m) => m.intervalHours === 1),
        exchange
      ).toBe(true)
      expect(
        venue.some((m) => m.intervalHours === 8),
        exchange
      ).toBe(true)
      expect(venue.filter((m) => m.intervalHours === 8).length).toBeGreaterThan(venue.length / 2)
      for (const m of venue) {
        expect(m.symbol).toBe(exchange === 'okx' ? `${m.base}-USDT-SWAP` : `${m.base}USDT`)
      }
    }
  })

  it('keeps prices continuous, near refPrice for months, with BTC volatility of a few % a day', () => {
    const sim = createSimMarket(SEED)
    for (const m of sim.markets.filter((x) => x.exchange === 'binance').slice(0, 40)) {
      for (let t = T0; t < T0 + 180 * DAY; t += 3 * DAY + 7 * HOUR) {
        const ratio = sim.price(m.base, t) / m.refPrice
        expect(ratio, m.base).toBeGreaterThan(0.6)
        expect(ratio, m.base).toBeLessThan(1.45)
      }
    }
    let sumSq = 0
    for (let d = 0; d < 120; d++)
      sumSq += Math.log(sim.price('BTC', T0 + (d + 1) * DAY) / sim.price('BTC', T0 + d * DAY)) ** 2
    const dailyVol = Math.sqrt(sumSq / 120)
    expect(dailyVol).toBeGreaterThan(0.01)
    expect(dailyVol).toBeLessThan(0.04)
    // continuity across midnight and within a minute
    const midnight = T0 + 5 * DAY
    expect(Math.abs(sim.price('ETH', midnight) / sim.price('ETH', midnight - 1) - 1)).toBeLessThan(1e-4)
    expect(Math.abs(sim.price('SOL', midnight + 30_001) / sim.price('SOL', midnight + 30_000) - 1)).toBeLessThan(1e-5)
  })
})

describe('sim market: a day of backfill', () => {
  const { sim, records } = day

  it('has every record kind, every record valid, integer ts inside the window', () => {
    for (const k of KINDS) expect(ofKind(records, k).length, k).toBeGreaterThan(0)
    // problems are collected rather than asserted per record: 250k expect() calls would take seconds
    const problems: string[] = []
    for (const r of records) {
      const v = validateRecord(r.kind, r)
      if (!v.ok) problems.push(`${JSON.stringify(r)}: ${v.problem.field} ${v.problem.message}`)
      if (!Number.isInteger(r.ts) || r.ts < T0 || r.ts >= T0 + DAY) problems.push(`${JSON.stringify(r)}: ts outside`)
      for (const value of Object.values(r)) {
        if (typeof value === 'number' && !Number.isFinite(value)) problems.push(`${JSON.stringify(r)}: not finite`)
      }
    }
    expect(problems.slice(0, 5), `seed ${SEED}`).toEqual([])
  })

  it('prices trades near the shared path, sizes $100-$500k, unique trade ids per market', () => {
    const trades = ofKind(records, 'trade')
    const bad = trades.filter((t) => {
      const usd = t.price * t.qty
      return !(t.qty > 0 && Math.abs(t.price / sim.price(t.base, t.ts) - 1) < 0.001 && usd > 50 && usd < 520_000)
    })
    expect(bad.slice(0, 5), `seed ${SEED}`).toEqual([])
    for (const [market, list] of groupBy(trades, (t) => `${t.exchange}:${t.symbol}`)) {
      expect(new Set(list.map((t) => t.trade_id)).size, market).toBe(list.length)
    }
    const btc = trades.filter((t) => t.exchange === 'binance' && t.symbol === 'BTCUSDT')
    expect(btc.length).toBe(2 * 24 * 60)
  })

  it('samples funding, open interest and long-short hourly with consistent fields', () => {
    const hourly = (sim.markets.length * 24) as number
    for (const kind of ['funding', 'open_interest', 'long_short'] as const)
      expect(ofKind(records, kind).length).toBe(hourly)
    const badFunding = ofKind(records, 'funding').filter((f) => {
      const interval = f.interval_hours * HOUR
      const next = f.next_funding_ts!
      return !(
        Math.abs(f.funding_rate) <= 0.002 &&
        next > f.ts &&
        next - f.ts <= interval &&
        next % interval === 0 &&
        Math.abs(f.mark_price! / f.index_price! - 1) < 0.005
      )
    })
    expect(badFunding.slice(0, 5)).toEqual([])
    const rates = ofKind(records, 'funding').map((f) => Math.abs(f.funding_rate))
    expect(rates.filter((r) => r < 0.0005).length).toBeGreaterThan(rates.length * 0.9)
    const badOi = ofKind(records, 'open_interest').filter(
      (o) => !(Math.abs(o.oi_usd / (o.oi_base * sim.price(o.base, o.ts)) - 1) < 0.005)
    )
    expect(badOi.slice(0, 5)).toEqual([])
    const btcOi = ofKind(records, 'open_interest').find((o) => o.exchange === 'binance' && o.base === 'BTC')!
    expect(btcOi.oi_usd).toBeGreaterThan(1e9)
    const badLs = ofKind(records, 'long_short').filter(
      (ls) =>
        !(
          Math.abs(ls.long_account! + ls.short_account! - 1) < 1e-9 &&
          Math.abs(ls.long_short_ratio - ls.long_account! / ls.short_account!) < 1e-9 &&
          ls.long_short_ratio >= 0.5 &&
          ls.long_short_ratio <= 3
        )
    )
    expect(badLs.slice(0, 5)).toEqual([])
  })

  it('quotes only live Deribit instruments, 6+ expiries per currency, on the shared index', () => {
    const quotes = ofKind(records, 'option_quote')
    const snapshots = groupBy(quotes, (q) => `${q.ts}`)
    expect(snapshots.size).toBe(24)
    const bad = quotes.filter((q) => {
      const parsed = parseInstrument(q.instrument)
      return !(
        /^(BTC|ETH)-\d{1,2}[A-Z]{3}\d{2}-\d+-[CP]$/.test(q.instrument) &&
        parsed !== null &&
        parsed.expiryMs > q.ts &&
        q.underlying_price === sim.price(parsed.currency, q.ts) &&
        q.mark_price > 0 &&
        q.open_interest > 0 &&
        (q.bid == null || q.bid <= q.ask!)
      )
    })
    expect(bad.slice(0, 5), `seed ${SEED}`).toEqual([])
    for (const snap of snapshots.values()) {
      for (const ccy of ['BTC', 'ETH']) {
        const names = snap.filter((q) => q.instrument.startsWith(`${ccy}-`)).map((q) => q.instrument)
        expect(new Set(names).size).toBe(names.length)
        expect(new Set(names.map((n) => n.split('-')[1])).size, ccy).toBeGreaterThanOrEqual(6)
        if (ccy === 'BTC') expect(names.length).toBeGreaterThanOrEqual(500)
      }
    }
    // the smile: a 25%-OTM put is priced at a higher IV than the equally far OTM call of the same expiry
    const snap = snapshots.get(`${T0 + 12 * HOUR}`)!
    const quarterly = snap.filter((q) => q.instrument.startsWith('BTC-27JUN25-'))
    const spot = quarterly[0]!.underlying_price
    const near = (target: number, type: 'C' | 'P') =>
      quarterly
        .filter((q) => q.instrument.endsWith(`-${type}`))
        .reduce((best, q) =>
          Math.abs(parseInstrument(q.instrument)!.strike - target) <
          Math.abs(parseInstrument(best.instrument)!.strike - target)
            ? q
            : best
        )
    expect(near(spot * 0.75, 'P').mark_iv!).toBeGreaterThan(near(spot * 1.25, 'C').mark_iv!)
  })

  it('moves whales on all 8 chains, with multi-hop routes and wash loops on each', () => {
    const whales = ofKind(records, 'whale_transfer')
    expect(new Set(whales.map((w) => w.chain))).toEqual(new Set(CHAINS))
    expect(new Set(whales.map((w) => `${w.chain}:${w.address}`)).size).toBeGreaterThan(300)
    for (const chain of CHAINS) {
      const rows = whales.filter((w) => w.chain === chain)
      expect(rows.length, chain).toBeGreaterThan(100)
      expect(rows.length, chain).toBeLessThan(1000)
      const evm = chain !== 'solana'
      const addressRe = evm ? /^0x[0-9a-f]{40}$/ : /^[1-9A-HJ-NP-Za-km-z]{43,44}$/
      const txRe = evm ? /^0x[0-9a-f]{64}$/ : /^[1-9A-HJ-NP-Za-km-z]{86,88}$/
      const bad = rows.filter(
        (w) =>
          !(
            addressRe.test(w.address) &&
            addressRe.test(w.counterparty) &&
            txRe.test(w.tx_hash) &&
            w.usd_value > 90_000 &&
            w.usd_value <= 50_000_000 &&
            w.amount > 0
          )
      )
      expect(bad.slice(0, 5), chain).toEqual([])
      const blocks = [...rows].sort((x, y) => x.ts - y.ts).map((w) => w.block_number)
      expect(blocks.every((b, i) => i === 0 || b >= blocks[i - 1]!)).toBe(true)
      // multi-hop: one tx, one address, several legs with consecutive log indexes and one token
      const routes = [...groupBy(rows, (w) => `${w.tx_hash}:${w.address}`).values()].filter((g) => g.length > 1)
      expect(routes.length, `${chain} multi-hop`).toBeGreaterThan(0)
      for (const legs of routes) {
        const logs = legs.map((l) => l.log_index).sort((x, y) => x - y)
        expect(logs.every((l, i) => i === 0 || l === logs[i - 1]! + 1)).toBe(true)
        expect(new Set(legs.map((l) => l.token)).size).toBe(1)
        expect(Math.max(...legs.map((l) => l.usd_value)) / Math.min(...legs.map((l) => l.usd_value))).toBeLessThan(1.02)
      }
      // wash loop: same wallet, token and partner, out then in, 2+ round trips, sizes within 5%, < 10 minutes
      const loops = [...groupBy(rows, (w) => `${w.address}:${w.counterparty}:${w.token}`).values()].filter((g) => {
        const legs = [...g].sort((x, y) => x.ts - y.ts)
        const sizes = legs.map((l) => l.usd_value)
        return (
          legs.length >= 4 &&
          legs.every((l, i) => l.event_type === (i % 2 === 0 ? 'transfer_out' : 'transfer_in')) &&
          legs[legs.length - 1]!.ts - legs[0]!.ts <= 10 * 60_000 &&
          Math.max(...sizes) / Math.min(...sizes) <= 1.05
        )
      })
      expect(loops.length, `${chain} wash loops`).toBeGreaterThan(0)
    }
  })

  it('reports hourly on-chain metrics for BTC, ETH, SOL and 7 more assets', () => {
    const metrics = ofKind(records, 'onchain_metric')
    const assets = new Set(metrics.map((m) => m.asset))
    expect(assets.size).toBeGreaterThanOrEqual(10)
    for (const a of ['BTC', 'ETH', 'SOL']) expect(assets.has(a)).toBe(true)
    for (const m of metrics) {
      expect(m.ts % HOUR).toBe(0)
      if (m.metric === 'mvrv') expect(m.value >= 0.8 && m.value <= 3.5).toBe(true)
      if (m.metric === 'active_addresses') expect(Number.isInteger(m.value) && m.value > 0).toBe(true)
      if (m.metric === 'exchange_reserve_usd') expect(m.value).toBeGreaterThan(0)
    }
    const netflows = metrics.filter((m) => m.metric === 'exchange_netflow_usd').map((m) => m.value)
    expect(netflows.some((v) => v < 0) && netflows.some((v) => v > 0)).toBe(true)
    expect(metrics.filter((m) => m.asset === 'BTC').length).toBe(4 * 24)
  })
})
