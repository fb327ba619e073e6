/**
 * @module
 * The derivatives screener (GET /v1/derivatives/screener) as a sortable, filterable table: click a header to
 * sort (again to reverse), filter by text (symbol or base) and venue. Funding shows the rate per interval,
 * the interval (hours) and the annualised rate side by side: venues settle every 1, 4 or 8 hours. The `screener` stream channel
 * replaces rows as markets get new readings (keyed by exchange and symbol).
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import { PERP_VENUES } from '../../../catalog/venues.js'
import { num, pct, usd } from '../lib/format.js'
import { subscribe } from '../lib/stream.js'
import { ErrorLine, Page, useApi } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { ScreenerRow as Row } from '../lib/api-types.js'

const COLUMNS: { key: keyof Row; label: string; fmt: (r: Row) => string; numeric: boolean }[] = [
  { key: 'symbol', label: 'Market', fmt: (r) => r.symbol, numeric: false },
  { key: 'exchange', label: 'Venue', fmt: (r) => r.exchange, numeric: false },
  { key: 'open_interest_usd', label: 'Open interest', fmt: (r) => usd(r.open_interest_usd), numeric: true },
  { key: 'open_interest_change_24h', label: 'OI 24h', fmt: (r) => pct(r.open_interest_change_24h), numeric: true },
  { key: 'volume_24h_usd', label: 'Volume 24h', fmt: (r) => usd(r.volume_24h_usd), numeric: true },
  { key: 'volume_change_24h', label: 'Vol 24h chg', fmt: (r) => pct(r.volume_change_24h, 1), numeric: true },
  {
    key: 'funding_rate',
    label: 'Funding',
    fmt: (r) => pct(r.funding_rate === null ? null : r.funding_rate * 100, 4),
    numeric: true
  },
  {
    // hours between settlements: the per-interval rate beside it annualises over 8760 / interval settlements
    key: 'funding_interval_hours',
    label: 'Interval',
    fmt: (r) => (r.funding_interval_hours === null ? '–' : `${num(r.funding_interval_hours, 2)} h`),
    numeric: true
  },
  {
    key: 'funding_rate_annualized',
    label: 'Funding (yr)',
    fmt: (r) => pct(r.funding_rate_annualized === null ? null : r.funding_rate_annualized * 100, 1),
    numeric: true
  },
  {
    key: 'long_short_ratio_cumulative',
    label: 'Long/short',
    fmt: (r) => num(r.long_short_ratio_cumulative, 3),
    numeric: true
  }
]

const rowKey = (r: Row): string => `${r.exchange}:${r.symbol}`

export function ScreenerPage() {
  const res = useApi('screener', () => client.GET('/v1/derivatives/screener'))
  const [rows, setRows] = useState<Map<string, Row>>(new Map())
  const [sort, setSort] = useState<{ key: keyof Row; desc: boolean }>({ key: 'volume_24h_usd', desc: true })
  const [filter, setFilter] = useState('')
  const [venue, setVenue] = useState('')

  useEffect(() => {
    if (res.data) setRows(new Map(res.data.rows.map((r) => [rowKey(r), r])))
  }, [res.data])

  useEffect(
    () =>
      subscribe('screener', (f) => {
        const incoming: Row[] = f.data?.rows ?? []
        if (incoming.length === 0) return
        setRows((prev) => {
          const next = new Map(prev)
          for (const r of incoming) next.set(rowKey(r), r)
          return next
        })
      }),
    []
  )

  const shown = useMemo(() => {
    const f = filter.trim().toUpperCase()
    const list = [...rows.values()].filter(
      (r) =>
        (!f || r.symbol.toUpperCase().includes(f) || r.base.toUpperCase() === f) && (!venue || r.exchange === venue)
    )
    const dir = sort.desc ? -1 : 1
    return list.sort((a, b) => {
      const x = a[sort.key]
      const y = b[sort.key]
      if (x === null || x === undefined) return 1
      if (y === null || y === undefined) return -1
      return (x < y ? -1 : x > y ? 1 : 0) * dir
    })
  }, [rows, sort, filter, venue])

  return (
    <Page
      title="Screener"
      synthetic={res.data?.synthetic}
      tools={
        <div class="inline">
          <input
            aria-label="Filter"
            placeholder="Filter: BTC, ETHUSDT…"
            value={filter}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
          <select aria-label="Venue" value={venue} onChange={(e) => setVenue(e.currentTarget.value)}>
            <option value="">All venues</option>
            {PERP_VENUES.map((v) => (
              <option key={v.id} value={v.id}>
                {v.label}
              </option>
            ))}
          </select>
        </div>
      }
    >
      <ErrorLine error={res.error} />
      <p class="muted">
        {shown.length} of {rows.size} markets
      </p>
      <table class="grid" data-testid="screener-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th
                class={`sortable ${c.numeric ? 'r' : ''}`}
                aria-sort={sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
                onClick={() => setSort((s) => ({ key: c.key, desc: s.key === c.key ? !s.desc : c.numeric }))}
              >
                {c.label}
                {sort.key === c.key ? (sort.desc ? ' ▼' : ' ▲') : ''}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={rowKey(r)}>
              {COLUMNS.map((c) => (
                <td class={c.numeric ? 'r' : ''}>{c.fmt(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  )
}
