/**
 * @module
 * Whale flows per chain (GET /v1/whales/summary: 24 h inflow, outflow and net per chain, drawn on a canvas)
 * and the latest whale events (GET /v1/whales/events), which the `whales:all` stream channel keeps current
 * (new events on top, repeat counts upserted by id).
 */
import { useEffect, useState } from 'preact/hooks'
import { num, usd, when } from '../lib/format.js'
import { subscribe } from '../lib/stream.js'
import { Chart, LABEL_HEIGHT, textWidth, type ChartLabel, type Overlay } from '../lib/chart.js'
import { ErrorLine, Page, useApi } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { WhaleEvent, WhaleSummary as Summary } from '../lib/api-types.js'

/** Events kept on screen (newest first). */
const MAX_EVENTS = 50

function drawFlows(ctx: CanvasRenderingContext2D, w: number, h: number, s: Summary | null): Overlay | null {
  const chains = Object.entries(s?.net_flows ?? {})
  if (chains.length === 0) return null
  const max = Math.max(1, ...chains.flatMap(([, f]) => [f.inflow, f.outflow]))
  const nets = chains.map(([, f]) => `net ${usd(f.net)}`)
  const pad = {
    l: Math.ceil(Math.max(...chains.map(([c]) => textWidth(ctx, c)))) + 14,
    r: Math.ceil(Math.max(...nets.map((t) => textWidth(ctx, t)))) + 14,
    t: 6,
    b: LABEL_HEIGHT + 10
  }
  const bottom = h - pad.b
  const row = (bottom - pad.t) / chains.length
  const mid = pad.l + (w - pad.l - pad.r) / 2
  const half = (w - pad.l - pad.r) / 2 - 2
  const labels: ChartLabel[] = []
  chains.forEach(([chain, f], i) => {
    const y = pad.t + i * row
    const bh = Math.max(4, row * 0.34)
    ctx.fillStyle = '#16a34a'
    ctx.fillRect(mid + 1, y + row / 2 - bh, (f.inflow / max) * half, bh)
    ctx.fillStyle = '#dc2626'
    ctx.fillRect(mid - (f.outflow / max) * half, y + row / 2 - bh, (f.outflow / max) * half, bh)
    ctx.fillStyle = f.net >= 0 ? '#15803d' : '#b91c1c'
    ctx.fillRect(
      f.net >= 0 ? mid + 1 : mid - (Math.abs(f.net) / max) * half,
      y + row / 2 + 1,
      (Math.abs(f.net) / max) * half,
      bh * 0.6
    )
    labels.push({ text: chain, x: pad.l - 8, y: y + row / 2, align: 'end', valign: 'middle', color: '#334155' })
    labels.push({
      text: nets[i]!,
      x: w - pad.r + 8,
      y: y + row / 2,
      align: 'start',
      valign: 'middle',
      color: f.net >= 0 ? '#15803d' : '#b91c1c'
    })
  })
  // under the plot: which side is which, and the scale's ends where they fit
  const sides: ChartLabel[] = [
    { text: '← outflow', x: mid - 6, y: bottom + 5, align: 'end' },
    { text: 'inflow →', x: mid + 6, y: bottom + 5, align: 'start' }
  ]
  const room = half - 6 - Math.max(textWidth(ctx, '← outflow'), textWidth(ctx, 'inflow →'))
  if (room > textWidth(ctx, usd(max)) + 16) {
    sides.push({ text: usd(max), x: pad.l, y: bottom + 5, align: 'start' })
    sides.push({ text: usd(max), x: w - pad.r, y: bottom + 5, align: 'end' })
  }
  return {
    axes: [
      { x1: mid, y1: pad.t, x2: mid, y2: bottom }, // zero flow
      { x1: pad.l, y1: bottom, x2: w - pad.r, y2: bottom } // USD
    ],
    labels: [...labels, ...sides]
  }
}

export function WhalesPage() {
  const summary = useApi('summary', () => client.GET('/v1/whales/summary'))
  const events = useApi('events', () => client.GET('/v1/whales/events', { params: { query: { limit: MAX_EVENTS } } }))
  const [list, setList] = useState<WhaleEvent[]>([])

  useEffect(() => {
    if (events.data) setList(events.data.events)
  }, [events.data])

  useEffect(
    () =>
      subscribe('whales:all', (f) => {
        const incoming: WhaleEvent[] = f.data?.events ?? []
        if (incoming.length === 0) return
        setList((prev) => {
          const byId = new Map(prev.map((e) => [e.id, e]))
          for (const e of incoming) byId.set(e.id, e)
          return [...byId.values()].sort((a, b) => b.ts - a.ts).slice(0, MAX_EVENTS)
        })
      }),
    []
  )

  const s = summary.data
  return (
    <Page title="Whale flows" synthetic={s?.synthetic || events.data?.synthetic}>
      <ErrorLine error={summary.error || events.error} />
      {s ? (
        <p class="muted">
          Last 24 h: volume {usd(s.total_volume_24h)}, {num(s.active_wallets, 0)} active wallets. Bars: outflow (left,
          red), inflow (right, green), net (thin bar).
        </p>
      ) : null}
      <Chart testid="whales-canvas" draw={(ctx, w, h) => drawFlows(ctx, w, h, summary.data)} deps={[summary.data]} />
      <h2>Latest whale events (live)</h2>
      <table class="grid">
        <thead>
          <tr>
            <th>Time (UTC)</th>
            <th>Chain</th>
            <th>Type</th>
            <th>Token</th>
            <th class="r">Amount</th>
            <th class="r">USD</th>
            <th>Significance</th>
            <th>Wallet</th>
          </tr>
        </thead>
        <tbody>
          {list.map((e) => (
            <tr key={e.id}>
              <td>{when(e.ts)}</td>
              <td>{e.chain}</td>
              <td>
                {e.event_type}
                {e.repeat_count > 1 ? ` ×${e.repeat_count}` : ''}
              </td>
              <td>{e.token}</td>
              <td class="r">{num(e.amount, 2)}</td>
              <td class="r">{usd(e.usd_value)}</td>
              <td>
                <span class={`sig ${e.significance}`}>{e.significance}</span>
              </td>
              <td class="mono" title={e.address}>
                {e.address.slice(0, 10)}…
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  )
}
