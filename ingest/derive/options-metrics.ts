/**
 * @module
 * Derives the per-snapshot options metrics rows (`options_metrics`, `options_expiry_metrics`) from option
 * quotes. Max pain has no clean SQL form over a stream of quotes, so the engine computes it from each
 * chain snapshot: quotes are grouped by currency and snapshot time (one snapshot = one `ts`), and each group
 * is summarized at its own time with the rule the live chain and `as_of` use (engine/options/chain-at.ts), so a
 * history point is the chain at that moment. A snapshot must reach one call whole (one Deribit answer, one
 * demo window, one admin ingest body): the parts of a snapshot split across calls would each give a row.
 */
import { chainMetrics } from '../../engine/options/chain-summary.js'
import { quoteCurrency, summarizeSnapshot } from '../../engine/options/chain-at.js'
import type { OptionsCurrency } from '../../engine/options/chain-types.js'
import { parseExpiryCode } from '../../engine/options/instrument.js'
import { escapeTsv } from '../../engine/runtime/tsv-row.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'
import { makeChunk, type EncodedChunk } from '../encoded-chunk.js'

const CURRENCIES: readonly OptionsCurrency[] = ['BTC', 'ETH']

export const OPTIONS_METRICS_COLUMNS = [
  'ts',
  'currency',
  'underlying_price',
  'total_call_oi',
  'total_put_oi',
  'total_call_volume',
  'total_put_volume',
  'pcr_oi',
  'pcr_volume',
  'nearest_expiry',
  'max_pain_nearest'
] as const
export const OPTIONS_EXPIRY_COLUMNS = [
  'ts',
  'currency',
  'expiry_code',
  'expiry_ts',
  'call_oi',
  'put_oi',
  'pcr',
  'max_pain',
  'total_pain_quote'
] as const

const nul = (v: number | null): string => (v === null ? '\\N' : String(v))

function snapshotGroups(quotes: readonly OptionQuoteRecord[]): Map<string, OptionQuoteRecord[]> {
  const groups = new Map<string, OptionQuoteRecord[]>()
  for (const q of quotes) {
    const currency = quoteCurrency(q.instrument)
    if (currency !== 'BTC' && currency !== 'ETH') continue
    const key = `${currency}|${q.ts}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = []))
    g.push(q)
  }
  return groups
}

/** Metrics chunks for every (currency, ts) snapshot among `quotes`; empty when there are none. */
export function deriveOptionsMetrics(quotes: readonly OptionQuoteRecord[], bulk: boolean): EncodedChunk[] {
  let metrics = ''
  let expiries = ''
  let metricRows = 0
  let expiryRows = 0
  for (const [key, group] of snapshotGroups(quotes)) {
    const [currency, tsText] = key.split('|') as [OptionsCurrency, string]
    const ts = Number(tsText)
    if (!CURRENCIES.includes(currency)) continue
    const s = summarizeSnapshot(group, currency, ts)
    const m = chainMetrics(s)
    metrics +=
      `${ts}\t${currency}\t${s.underlying_price}\t${s.total_call_oi}\t${s.total_put_oi}\t${s.total_call_volume}\t` +
      `${s.total_put_volume}\t${nul(s.pcr_oi)}\t${nul(s.pcr_volume)}\t${escapeTsv(m.nearest_expiry ?? '')}\t` +
      `${nul(m.max_pain_nearest)}\n`
    metricRows++
    for (const [code, e] of Object.entries(s.expiry_summary)) {
      const pain = s.max_pain[code]!
      expiries +=
        `${ts}\t${currency}\t${escapeTsv(code)}\t${parseExpiryCode(code) ?? 0}\t${e.call_oi}\t${e.put_oi}\t` +
        `${nul(e.pcr)}\t${e.max_pain}\t${pain.total_pain_quote}\n`
      expiryRows++
    }
  }
  const out: EncodedChunk[] = []
  if (metricRows > 0) out.push(makeChunk('options_metrics', OPTIONS_METRICS_COLUMNS, metricRows, metrics, bulk))
  if (expiryRows > 0) out.push(makeChunk('options_expiry_metrics', OPTIONS_EXPIRY_COLUMNS, expiryRows, expiries, bulk))
  return out
}
