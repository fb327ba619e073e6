/**
 * @module
 * Options open interest by strike (GET /v1/options/chain; calls up, puts down, summed across expiries) with
 * the underlying price and the max-pain strike of the selected expiry marked (each label in its own row
 * above the plot), and the max pain of every
 * expiry in a table. Live: the `options:<BTC|ETH>` channel replaces the summary when a quote changes.
 */
import { useEffect, useState } from 'preact/hooks'
import { num, usd } from '../lib/format.js'
import { subscribe } from '../lib/stream.js'
import { Chart, LABEL_HEIGHT, textWidth, xTicks, type ChartLabel, type Overlay } from '../lib/chart.js'
import { ErrorLine, Page, useApi } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { OptionsChain as Chain } from '../lib/api-types.js'

/** Room above the plot for the two marker labels (spot, max pain), one row each. */
const MARKER_ROWS = 2

function drawOi(
  ctx: CanvasRenderingContext2D,
  w: number,
  h: number,
  chain: Chain | null,
  pain: number | null
): Overlay | null {
  const rows = chain?.oi_by_strike ?? []
  if (!chain || rows.length === 0) return null
  const maxOi = Math.max(1, ...rows.map((r) => Math.max(r.call_oi, r.put_oi)))
  const left = [num(maxOi, 0), 'calls', 'puts']
  const pad = {
    l: Math.ceil(Math.max(...left.map((t) => textWidth(ctx, t)))) + 12,
    r: 12,
    t: 8 + MARKER_ROWS * (LABEL_HEIGHT + 3),
    b: LABEL_HEIGHT + 10
  }
  const bottom = h - pad.b
  const mid = pad.t + (bottom - pad.t) / 2
  const half = (bottom - pad.t) / 2
  const lo = rows[0]!.strike
  const hi = rows[rows.length - 1]!.strike
  const bw = Math.max(2, ((w - pad.l - pad.r) / rows.length) * 0.7)
  // bar centres stay half a bar inside the axes
  const x0 = pad.l + bw / 2 + 2
  const x1 = w - pad.r - bw / 2
  const x = (k: number): number => x0 + ((k - lo) / Math.max(1, hi - lo)) * (x1 - x0)
  for (const r of rows) {
    const cx = x(r.strike) - bw / 2
    ctx.fillStyle = '#16a34a'
    ctx.fillRect(cx, mid - (r.call_oi / maxOi) * half, bw, (r.call_oi / maxOi) * half)
    ctx.fillStyle = '#dc2626'
    ctx.fillRect(cx, mid + 1, bw, (r.put_oi / maxOi) * half)
  }
  const labels: ChartLabel[] = [
    { text: num(maxOi, 0), x: pad.l - 6, y: pad.t, align: 'end', valign: 'top' },
    { text: 'calls', x: pad.l - 6, y: mid - 3, align: 'end', valign: 'bottom' },
    { text: 'puts', x: pad.l - 6, y: mid + 3, align: 'end', valign: 'top' },
    { text: num(maxOi, 0), x: pad.l - 6, y: bottom, align: 'end', valign: 'bottom' },
    ...xTicks(ctx, pad.l, w - pad.r, bottom + 5, (t) => num(lo + t * (hi - lo), 0))
  ]
  // the markers: a dashed line from the plot's top, its label in its own row above the plot, on the side
  // of the line with room for it
  const marker = (k: number, color: string, text: string, row: number): void => {
    if (k < lo || k > hi) return
    ctx.strokeStyle = color
    ctx.setLineDash([4, 3])
    ctx.beginPath()
    ctx.moveTo(x(k), pad.t)
    ctx.lineTo(x(k), bottom)
    ctx.stroke()
    ctx.setLineDash([])
    const fitsRight = x(k) + 4 + textWidth(ctx, text) <= w - 4
    const y = 4 + row * (LABEL_HEIGHT + 3)
    labels.push({ text, x: fitsRight ? x(k) + 4 : x(k) - 4, y, align: fitsRight ? 'start' : 'end', color })
  }
  marker(chain.underlying_price, '#2563eb', `spot ${num(chain.underlying_price, 0)}`, 0)
  if (pain !== null) marker(pain, '#9333ea', `max pain ${num(pain, 0)}`, 1)
  return {
    axes: [
      { x1: pad.l, y1: pad.t, x2: pad.l, y2: bottom }, // OI
      { x1: pad.l, y1: mid, x2: w - pad.r, y2: mid }, // zero: calls above, puts below
      { x1: pad.l, y1: bottom, x2: w - pad.r, y2: bottom } // strike
    ],
    labels
  }
}

export function OptionsPage() {
  const [currency, setCurrency] = useState<'BTC' | 'ETH'>('BTC')
  const res = useApi(currency, () => client.GET('/v1/options/chain', { params: { query: { currency } } }))
  // the stream's latest summary; the HTTP answer alone says whether the data is synthetic
  const [live, setLive] = useState<Chain | null>(null)
  const [expiry, setExpiry] = useState<string | null>(null)
  const chain = live ?? res.data
  const expiries = chain ? Object.keys(chain.max_pain) : []
  const selected = expiry && chain?.max_pain[expiry] ? expiry : (expiries[0] ?? null)
  const pain = selected && chain ? (chain.max_pain[selected]?.strike ?? null) : null

  useEffect(() => {
    setLive(null)
    return subscribe(`options:${currency}`, (f) => {
      if (f.data && Array.isArray(f.data.oi_by_strike)) setLive(f.data as Chain)
    })
  }, [currency])

  return (
    <Page
      title="Options open interest"
      synthetic={res.data?.synthetic}
      tools={
        <select
          aria-label="Currency"
          value={currency}
          onChange={(e) => setCurrency(e.currentTarget.value as 'BTC' | 'ETH')}
        >
          <option>BTC</option>
          <option>ETH</option>
        </select>
      }
    >
      <ErrorLine error={res.error} />
      {chain ? (
        <p class="muted">
          Underlying {usd(chain.underlying_price)} · call OI {num(chain.total_call_oi, 0)} · put OI{' '}
          {num(chain.total_put_oi, 0)} · put/call {num(chain.pcr_oi, 3)}
        </p>
      ) : null}
      <Chart testid="options-canvas" draw={(ctx, w, h) => drawOi(ctx, w, h, chain, pain)} deps={[chain, pain]} />
      <h2>Max pain per expiry</h2>
      <table class="grid">
        <thead>
          <tr>
            <th>Expiry</th>
            <th>Max pain strike</th>
            <th>Payout at max pain</th>
            <th>Call OI</th>
            <th>Put OI</th>
            <th>Put/call</th>
          </tr>
        </thead>
        <tbody>
          {expiries.map((e) => {
            const s = chain!.expiry_summary[e]
            return (
              <tr key={e} class={e === selected ? 'selected' : ''} onClick={() => setExpiry(e)}>
                <td>{e}</td>
                <td>{num(chain!.max_pain[e]!.strike, 0)}</td>
                <td>{usd(chain!.max_pain[e]!.total_pain_quote)}</td>
                <td>{num(s?.call_oi, 1)}</td>
                <td>{num(s?.put_oi, 1)}</td>
                <td>{num(s?.pcr, 3)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </Page>
  )
}
