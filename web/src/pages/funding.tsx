/**
 * @module
 * Funding heatmap across exchanges (GET /v1/historical/derivatives/funding-heatmap/comparative): one row per
 * venue, one cell per interval, coloured by the 8-hour-equivalent rate (green: longs pay, red: shorts pay),
 * drawn on a canvas. The latest rates per venue follow the `funding:<base>` stream channel.
 */
import { useEffect, useState } from 'preact/hooks'
import { pct, when } from '../lib/format.js'
import { subscribe } from '../lib/stream.js'
import { Chart, LABEL_HEIGHT, textWidth, xTicks, type ChartLabel, type Overlay } from '../lib/chart.js'
import { divergingColor, ErrorLine, Page, useApi, SymbolForm } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { Heatmap } from '../lib/api-types.js'

function drawHeatmap(ctx: CanvasRenderingContext2D, w: number, h: number, hm: Heatmap | null): Overlay | null {
  const rows = hm?.data ?? []
  if (rows.length === 0) return null
  const venues = [...new Set(rows.flatMap((r) => Object.keys(r.exchanges)))].sort()
  const rates = rows.flatMap((r) => venues.map((v) => r.exchanges[v]?.rate_8h ?? 0))
  const scale = Math.max(1e-6, ...rates.map(Math.abs))
  const pad = {
    l: Math.ceil(Math.max(...venues.map((v) => textWidth(ctx, v)))) + 14,
    r: 8,
    t: 8,
    b: LABEL_HEIGHT + 10
  }
  const bottom = h - pad.b
  const cw = (w - pad.l - pad.r) / rows.length
  const ch = (bottom - 2 - pad.t) / venues.length
  venues.forEach((v, i) => {
    rows.forEach((r, j) => {
      const rate = r.exchanges[v]?.rate_8h
      ctx.fillStyle = rate === null || rate === undefined ? '#e2e8f0' : divergingColor(rate / scale)
      ctx.fillRect(pad.l + 2 + j * cw, pad.t + i * ch, Math.max(1, cw - 1), ch - 2)
    })
  })
  return {
    axes: [
      { x1: pad.l, y1: pad.t, x2: pad.l, y2: bottom }, // venue
      { x1: pad.l, y1: bottom, x2: w - pad.r, y2: bottom } // time
    ],
    labels: [
      ...venues.map((v, i): ChartLabel => ({
        text: v,
        x: pad.l - 8,
        y: pad.t + ch * i + ch / 2,
        align: 'end',
        valign: 'middle',
        color: '#334155'
      })),
      // a tick names the start of the bucket nearest to it
      ...xTicks(ctx, pad.l + 2, w - pad.r, bottom + 5, (t) => when(rows[Math.round(t * (rows.length - 1))]!.timestamp))
    ]
  }
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
      <Chart testid="funding-canvas" draw={(ctx, w, h) => drawHeatmap(ctx, w, h, res.data)} deps={[res.data]} />
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
