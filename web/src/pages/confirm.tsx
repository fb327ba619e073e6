/**
 * @module
 * The confirmation for a symbol and direction (GET /v1/confirm): action, size, composite, the three
 * sub-scores as bars on a canvas, and the model's reasons (docs/confirm.md). The `confirm:<base>` stream
 * channel pushes both directions when the answer changes. Below the live answer, the answers of the past days
 * and their evaluation (./confirm-history.tsx).
 */
import { useEffect, useState } from 'preact/hooks'
import { num } from '../lib/format.js'
import { subscribe } from '../lib/stream.js'
import { Chart, LABEL_HEIGHT, textWidth, type ChartLabel, type Overlay } from '../lib/chart.js'
import { divergingColor, ErrorLine, Page, useApi, SymbolForm } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { Confirm } from '../lib/api-types.js'
import { ConfirmLookback } from './confirm-history.js'

function drawScores(ctx: CanvasRenderingContext2D, w: number, h: number, c: Confirm | null): Overlay | null {
  if (!c) return null
  const scores: [string, number][] = [
    ['derivatives', c.deriv_score],
    ['on-chain', c.onchain_score],
    ['whales', c.whale_score],
    ['composite', c.composite]
  ]
  const pad = {
    l: Math.ceil(Math.max(...scores.map(([n]) => textWidth(ctx, n)))) + 14,
    r: Math.ceil(textWidth(ctx, '-0.000')) + 14,
    t: 4,
    b: LABEL_HEIGHT + 10
  }
  const bottom = h - pad.b
  const row = (bottom - pad.t) / scores.length
  const mid = pad.l + (w - pad.l - pad.r) / 2
  const half = (w - pad.l - pad.r) / 2
  const labels: ChartLabel[] = []
  scores.forEach(([name, v], i) => {
    const y = pad.t + i * row
    ctx.fillStyle = '#f1f5f9'
    ctx.fillRect(pad.l, y + row * 0.2, w - pad.l - pad.r, row * 0.6)
    ctx.fillStyle = divergingColor(v)
    const len = Math.max(2, Math.abs(v) * half)
    ctx.fillRect(v >= 0 ? mid : mid - len, y + row * 0.2, len, row * 0.6)
    labels.push({ text: name, x: pad.l - 8, y: y + row / 2, align: 'end', valign: 'middle', color: '#334155' })
    labels.push({
      text: num(v, 3),
      x: w - pad.r + 8,
      y: y + row / 2,
      align: 'start',
      valign: 'middle',
      color: '#334155'
    })
  })
  return {
    axes: [
      { x1: mid, y1: pad.t, x2: mid, y2: bottom }, // zero
      { x1: pad.l, y1: bottom, x2: w - pad.r, y2: bottom } // score
    ],
    labels: [
      ...labels,
      { text: '−1 against', x: pad.l, y: bottom + 5, align: 'start' },
      { text: '0', x: mid, y: bottom + 5, align: 'middle' },
      { text: '+1 for', x: w - pad.r, y: bottom + 5, align: 'end' }
    ]
  }
}

export function ConfirmPage(props: { query: URLSearchParams }) {
  const [symbol, setSymbol] = useState(props.query.get('symbol') ?? 'BTC')
  const [direction, setDirection] = useState<'long' | 'short'>(
    props.query.get('direction') === 'short' ? 'short' : 'long'
  )
  const res = useApi(`${symbol}:${direction}`, () =>
    client.GET('/v1/confirm', { params: { query: { symbol, direction, source: 'dashboard' } } })
  )
  // the stream's latest answer for this direction; the HTTP answer alone says whether the data is synthetic
  const [live, setLive] = useState<Confirm | null>(null)
  const c = live ?? res.data
  const base = res.data?.symbol

  useEffect(() => {
    setLive(null)
    if (!base) return
    return subscribe(`confirm:${base}`, (f) => {
      const next = f.data?.[direction]
      if (next && typeof next.composite === 'number') setLive(next as Confirm)
    })
  }, [base, direction])

  return (
    <Page
      title="Confirm"
      synthetic={res.data?.synthetic}
      tools={
        <SymbolForm symbol={symbol} onSymbol={setSymbol} size={16} submit="Check">
          <select
            aria-label="Direction"
            value={direction}
            onChange={(e) => setDirection(e.currentTarget.value as 'long' | 'short')}
          >
            <option value="long">long</option>
            <option value="short">short</option>
          </select>
        </SymbolForm>
      }
    >
      <ErrorLine error={res.error} />
      {c ? (
        <div class="cards">
          <div class="card">
            <div class="label">Action</div>
            <div class={`big action-${c.action}`}>{c.action}</div>
          </div>
          <div class="card">
            <div class="label">Size multiplier</div>
            <div class="big">{num(c.size_mult, 2)}×</div>
          </div>
          <div class="card">
            <div class="label">Confidence</div>
            <div class="big">{c.confidence}</div>
          </div>
          <div class="card">
            <div class="label">Confirmation</div>
            <div class="big">
              {c.confirmation} <small>({num(c.score, 2)})</small>
            </div>
          </div>
        </div>
      ) : null}
      <h2>Sub-scores (−1 against, +1 for the {direction})</h2>
      <Chart testid="confirm-canvas" short draw={(ctx, w, h) => drawScores(ctx, w, h, c)} deps={[c]} />
      <h2>Reasons</h2>
      <ul class="reasons">
        {c?.reasons.map((r) => (
          <li>{r}</li>
        ))}
      </ul>
      {c ? <p class="muted">As of {c.as_of}</p> : null}
      {base ? <ConfirmLookback symbol={base} direction={direction} /> : null}
    </Page>
  )
}
