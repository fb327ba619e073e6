/**
 * @module
 * Micro-benchmarks of the options chain: rebuilding a full BTC chain snapshot (every instrument of one
 * demo-market snapshot, ~700-900) from the live book (the chain summary included), and max pain per
 * expiry against its brute-force definition on the same rows (the same-run reference: O(n log n) against
 * O(n²)). Medians of many runs.
 */
import { OptionsBook } from '../../engine/live/options-book.js'
import { maxPain, maxPainBruteForce } from '../../engine/options/max-pain.js'
import { parseInstrument } from '../../engine/options/instrument.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'
import { createSimMarket } from '../../ingest/sources/sim/sim-market.js'
import { median } from '../stats.js'

export function optionsMicro(runs = 300): Record<string, unknown> {
  const now = Date.now()
  const quotes: OptionQuoteRecord[] = []
  for (const chunk of createSimMarket(42).generate(now - 3_600_000, now, 'backfill')) {
    for (const r of chunk) if (r.kind === 'option_quote' && r.instrument.startsWith('BTC-')) quotes.push(r)
  }
  const book = new OptionsBook()
  const rebuild: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    book.reset(quotes)
    book.chainJson('BTC', now)
    rebuild.push(performance.now() - t0)
  }
  const byExpiry = new Map<string, { strike: number; callOi: number; putOi: number }[]>()
  for (const q of quotes) {
    const p = parseInstrument(q.instrument)!
    let rows = byExpiry.get(p.expiryCode)
    if (!rows) byExpiry.set(p.expiryCode, (rows = []))
    rows.push({
      strike: p.strike,
      callOi: p.type === 'call' ? q.open_interest : 0,
      putOi: p.type === 'put' ? q.open_interest : 0
    })
  }
  const perExpiry: Record<string, number> = {}
  const bruteRatio: Record<string, number> = {}
  const timeOf = (f: () => unknown): number => {
    const times: number[] = []
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now()
      f()
      times.push(performance.now() - t0)
    }
    return median(times)
  }
  for (const [code, rows] of byExpiry) {
    const name = `${code} (${rows.length} instruments)`
    const fast = timeOf(() => maxPain(rows))
    perExpiry[name] = Math.round(fast * 1000) / 1000
    bruteRatio[name] = Math.round((timeOf(() => maxPainBruteForce(rows)) / fast) * 10) / 10
  }
  return {
    instruments: quotes.length,
    expiries: byExpiry.size,
    chain_rebuild_median_ms: Math.round(median(rebuild) * 1000) / 1000,
    chain_rebuild_target_ms: 5,
    max_pain_median_ms_per_expiry: perExpiry,
    /** the brute-force definition's median time over maxPain's, per expiry (same rows, same run) */
    max_pain_brute_force_over_fast: bruteRatio
  }
}
