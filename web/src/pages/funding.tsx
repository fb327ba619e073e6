/**
 * @module
 * Funding heatmap across exchanges (GET /v1/historical/derivatives/funding-heatmap/comparative): one row per
 * venue, one cell per interval, coloured by the 8-hour-equivalent rate (green: longs pay, red: shorts pay),
 * drawn on a canvas. The latest rates per venue follow the `funding:<base>` stream channel.
 */
import { useEffect, useState } from 'preact/hooks'
import { pct, when } from '../lib/format.js'
import { subscribe } from '../lib/stream.js'
import { divergingColor, ErrorLine, Page, useApi, useCanvas, SymbolForm } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { Heatmap } from '../lib/api-types.js'

function drawHeatmap(ctx: CanvasRenderingContext2D, w: number, h: number, hm: Heatmap | null): boolean {
  const rows = hm?.data ?? []
  if (rows.length === 0) return false
  const venues = [...new Set(rows.flatMap((r) => Object.keys(r.exchanges)))].sort()
  const rates = rows.flatMap((r) => venues.map((v) => r.exchanges[v]?.rate_8h ?? 0))
  const scale = Math.max(1e-6, ...rates.map(Math.abs))
  const pad = { l: 70, r: 8, t: 8, b: 24 }
  const cw = (w - pad.l - pad.r) / rows.length
  const ch = (h - pad.t - pad.b) / venues.length
  ctx.font = '12px system-ui, sans-serif'
  venues.forEach((v, i) => {
    ctx.fillStyle = '#334155'
    ctx.fillText(v, 6, pad.t + ch * i + ch / 2 + 4)
    rows.forEach((r, j) => {
      const rate = r.exchanges[v]?.rate_8h
      ctx.fillStyle = rate === null || rate === undefined ? '#e2e8f0' : divergingColor(rate / scale)
      ctx.fillRect(pad.l + j * cw, pad.t + i * ch, Math.max(1, cw - 1), ch - 2)
    })
  })
  ctx.fillStyle = '#64748b'
  ctx.font = '11px system-ui, sans-serif'
  ctx.fillText(when(rows[0]!.timestamp), pad.l, h - 6)
  ctx.fillText(when(rows[rows.length - 1]!.timestamp), w - pad.r - 100, h - 6)
  return true
}

export function FundingPage(props: { query: URLSearchParams }) {
  const [symbol, setSymbol] = useState(props.query.get('symbol') ?? 'BTC')
  const [lookback, setLookback] = useState('7d')
  const res = useApi(`${symbol}:${lookback}`, () =>
    client.GET('/v1/historical/derivatives/funding-heatmap/comparative', {
      params: { query: { symbol, interval: '1h', lookback } }
    })
  )
  const [latest, setLatest] = useState<
    Record<string, { funding_rate: number; interval_hours: number; funding_rate_annualized: number }>
  >({})
  const canvas = useCanvas((ctx, w, h) => drawHeatmap(ctx, w, h, res.data), [res.data])

  useEffect(() => {
    setLatest({})
    return subscribe(`funding:${symbol}`, (f) => {
      const list: any[] = Array.isArray(f.data) ? f.data : []
      setLatest((prev) => {
        const next = { ...prev }
        for (const r of list) next[`${r.exchange} ${r.symbol}`] = r
        return next
      })
    })
  }, [symbol])

  return (
    <Page
      title="Funding heatmap"
      synthetic={res.data?.synthetic}
      tools={
        <SymbolForm symbol={symbol} onSymbol={setSymbol} size={10} submit="Show">
          <select aria-label="Lookback" value={lookback} onChange={(e) => setLookback(e.currentTarget.value)}>
            <option value="1d">1 day</option>
            <option value="7d">7 days</option>
            <option value="30d">30 days</option>
          </select>
        </SymbolForm>
      }
    >
      <ErrorLine error={res.error} />
      <p class="muted">
        Hourly funding per venue, as the 8-hour equivalent rate. Green: longs pay shorts; red: shorts pay longs.
      </p>
      <canvas class="plot" ref={canvas} data-testid="funding-canvas" />
      <h2>Latest (live)</h2>
      <table class="grid">
        <thead>
          <tr>
            <th>Market</th>
            <th>Rate per interval</th>
            <th>Interval</th>
            <th>Annualized</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(latest).map(([k, r]) => (
            <tr key={k}>
              <td>{k}</td>
              <td>{pct(r.funding_rate * 100, 4)}</td>
              <td>{r.interval_hours} h</td>
              <td>{pct(r.funding_rate_annualized * 100, 1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  )
}
