/**
 * @module
 * Options open interest by strike (GET /v1/options/chain; calls up, puts down, summed across expiries) with
 * the underlying price and the max-pain strike of the selected expiry marked, and the max pain of every
 * expiry in a table. Live: the `options:<BTC|ETH>` channel replaces the summary when a quote changes.
 */
import { useEffect, useState } from 'preact/hooks'
import { num, usd } from '../lib/format.js'
import { subscribe } from '../lib/stream.js'
import { ErrorLine, Page, useApi, useCanvas } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { OptionsChain as Chain } from '../lib/api-types.js'

function drawOi(
  ctx: CanvasRenderingContext2D,
  w: number,
  h: number,
  chain: Chain | null,
  pain: number | null
): boolean {
  const rows = chain?.oi_by_strike ?? []
  if (!chain || rows.length === 0) return false
  const pad = { l: 56, r: 12, t: 12, b: 28 }
  const mid = pad.t + (h - pad.t - pad.b) / 2
  const half = (h - pad.t - pad.b) / 2
  const maxOi = Math.max(1, ...rows.map((r) => Math.max(r.call_oi, r.put_oi)))
  const lo = rows[0]!.strike
  const hi = rows[rows.length - 1]!.strike
  const x = (k: number): number => pad.l + ((k - lo) / Math.max(1, hi - lo)) * (w - pad.l - pad.r)
  const bw = Math.max(2, ((w - pad.l - pad.r) / rows.length) * 0.7)
  ctx.font = '11px system-ui, sans-serif'
  ctx.fillStyle = '#64748b'
  ctx.fillText(`${num(maxOi, 0)}`, 4, pad.t + 10)
  ctx.fillText('calls', 4, mid - 6)
  ctx.fillText('puts', 4, mid + 14)
  ctx.strokeStyle = '#cbd5e1'
  ctx.beginPath()
  ctx.moveTo(pad.l, mid)
  ctx.lineTo(w - pad.r, mid)
  ctx.stroke()
  for (const r of rows) {
    const cx = x(r.strike) - bw / 2
    ctx.fillStyle = '#16a34a'
    ctx.fillRect(cx, mid - (r.call_oi / maxOi) * half, bw, (r.call_oi / maxOi) * half)
    ctx.fillStyle = '#dc2626'
    ctx.fillRect(cx, mid, bw, (r.put_oi / maxOi) * half)
  }
  const marker = (k: number, color: string, label: string, dy: number): void => {
    if (k < lo || k > hi) return
    ctx.strokeStyle = color
    ctx.setLineDash([4, 3])
    ctx.beginPath()
    ctx.moveTo(x(k), pad.t)
    ctx.lineTo(x(k), h - pad.b)
    ctx.stroke()
    ctx.setLineDash([])
    ctx.fillStyle = color
    ctx.fillText(label, Math.min(x(k) + 4, w - 120), pad.t + dy)
  }
  marker(chain.underlying_price, '#2563eb', `spot ${num(chain.underlying_price, 0)}`, 10)
  if (pain !== null) marker(pain, '#9333ea', `max pain ${num(pain, 0)}`, 24)
  ctx.fillStyle = '#64748b'
  ctx.fillText(num(lo, 0), pad.l, h - 8)
  ctx.fillText(num(hi, 0), w - pad.r - 40, h - 8)
  return true
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
  const canvas = useCanvas((ctx, w, h) => drawOi(ctx, w, h, chain, pain), [chain, pain])

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
      <canvas class="plot" ref={canvas} data-testid="options-canvas" />
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
