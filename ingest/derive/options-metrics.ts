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
import { compileTsvRow, type TsvColumn } from '../../engine/runtime/tsv-row.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'
import { makeChunk, type EncodedChunk } from '../encoded-chunk.js'

const CURRENCIES: readonly OptionsCurrency[] = ['BTC', 'ETH']

/** An `options_metrics` row: one chain snapshot's totals (coins), ratios and nearest max pain (USD per coin). */
interface MetricsRow {
  readonly ts: number
  readonly currency: OptionsCurrency
  readonly underlying_price: number
  readonly total_call_oi: number
  readonly total_put_oi: number
  readonly total_call_volume: number
  readonly total_put_volume: number
  readonly pcr_oi: number | null
  readonly pcr_volume: number | null
  /** '' when the snapshot has no expiry (the column is a plain String) */
  readonly nearest_expiry: string
  readonly max_pain_nearest: number | null
}

/** An `options_expiry_metrics` row: one expiry of one snapshot. */
interface ExpiryRow {
  readonly ts: number
  readonly currency: OptionsCurrency
  readonly expiry_code: string
  /** expiry time, epoch ms; 0 when the code does not parse */
  readonly expiry_ts: number
  readonly call_oi: number
  readonly put_oi: number
  readonly pcr: number | null
  readonly max_pain: number
  readonly total_pain_quote: number
}

const METRICS_CELLS: readonly TsvColumn[] = [
  { name: 'ts', cell: 'raw' },
  { name: 'currency', cell: 'raw' },
  { name: 'underlying_price', cell: 'raw' },
  { name: 'total_call_oi', cell: 'raw' },
  { name: 'total_put_oi', cell: 'raw' },
  { name: 'total_call_volume', cell: 'raw' },
  { name: 'total_put_volume', cell: 'raw' },
  { name: 'pcr_oi', cell: 'raw', nullable: true },
  { name: 'pcr_volume', cell: 'raw', nullable: true },
  { name: 'nearest_expiry', cell: 'text' },
  { name: 'max_pain_nearest', cell: 'raw', nullable: true }
]
const EXPIRY_CELLS: readonly TsvColumn[] = [
  { name: 'ts', cell: 'raw' },
  { name: 'currency', cell: 'raw' },
  { name: 'expiry_code', cell: 'text' },
  { name: 'expiry_ts', cell: 'raw' },
  { name: 'call_oi', cell: 'raw' },
  { name: 'put_oi', cell: 'raw' },
  { name: 'pcr', cell: 'raw', nullable: true },
  { name: 'max_pain', cell: 'raw' },
  { name: 'total_pain_quote', cell: 'raw' }
]

const OPTIONS_METRICS_COLUMNS: readonly string[] = METRICS_CELLS.map((c) => c.name)
const OPTIONS_EXPIRY_COLUMNS: readonly string[] = EXPIRY_CELLS.map((c) => c.name)

const metricsRow = compileTsvRow<MetricsRow>(METRICS_CELLS, '\n')
const expiryRow = compileTsvRow<ExpiryRow>(EXPIRY_CELLS, '\n')

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
    metrics += metricsRow({
      ts,
      currency,
      underlying_price: s.underlying_price,
      total_call_oi: s.total_call_oi,
      total_put_oi: s.total_put_oi,
      total_call_volume: s.total_call_volume,
      total_put_volume: s.total_put_volume,
      pcr_oi: s.pcr_oi,
      pcr_volume: s.pcr_volume,
      nearest_expiry: m.nearest_expiry ?? '',
      max_pain_nearest: m.max_pain_nearest
    })
    metricRows++
    for (const [code, e] of Object.entries(s.expiry_summary)) {
      const pain = s.max_pain[code]!
      expiries += expiryRow({
        ts,
        currency,
        expiry_code: code,
        expiry_ts: parseExpiryCode(code) ?? 0,
        call_oi: e.call_oi,
        put_oi: e.put_oi,
        pcr: e.pcr,
        max_pain: e.max_pain,
        total_pain_quote: pain.total_pain_quote
      })
      expiryRows++
    }
  }
  const out: EncodedChunk[] = []
  if (metricRows > 0) out.push(makeChunk('options_metrics', OPTIONS_METRICS_COLUMNS, metricRows, metrics, bulk))
  if (expiryRows > 0) out.push(makeChunk('options_expiry_metrics', OPTIONS_EXPIRY_COLUMNS, expiryRows, expiries, bulk))
  return out
}
