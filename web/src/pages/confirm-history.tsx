/**
 * @module
 * The Confirm page's look back (docs/confirm.md "History" and "Evaluation"): the answers of the last
 * LOOKBACK_DAYS at each hour as they were then (GET /v1/confirm/history), the composite drawn over time, and
 * the walk-forward evaluation of those answers (GET /v1/confirm/evaluation): per action and confidence, the
 * mean forward return, hit rate and 95% interval at each horizon beside the always-confirm baseline.
 */
import { client } from '../lib/api.js'
import type { ConfirmEvaluation, ConfirmHistory } from '../lib/api-types.js'
import { num, when } from '../lib/format.js'
import { divergingColor, ErrorLine, useApi, useCanvas } from '../lib/ui.js'

/** Days looked back: 72 hourly answers keep both calls quick. */
const LOOKBACK_DAYS = 3
const HOUR_MS = 3_600_000
/** the evaluation's default horizons, as it answers them */
const HORIZONS = ['1h', '4h', '24h']

/** The look back: the whole hours of the last LOOKBACK_DAYS, ending at the current hour (the same all hour long). */
function lookback(): { start: string; end: string } {
  const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS
  return { start: new Date(hour - LOOKBACK_DAYS * 24 * HOUR_MS).toISOString(), end: new Date(hour).toISOString() }
}

function drawComposite(ctx: CanvasRenderingContext2D, w: number, h: number, rows: ConfirmHistory['data']): boolean {
  if (rows.length === 0) return false
  const pad = { l: 36, r: 8, t: 8, b: 18 }
  const t0 = rows[0]!.timestamp
  const span = Math.max(1, rows[rows.length - 1]!.timestamp - t0)
  const x = (t: number) => pad.l + ((t - t0) / span) * (w - pad.l - pad.r)
  const y = (v: number) => pad.t + ((1 - v) / 2) * (h - pad.t - pad.b)
  ctx.font = '11px system-ui, sans-serif'
  ctx.fillStyle = '#64748b'
  for (const v of [1, 0, -1]) ctx.fillText(String(v), 6, y(v) + 4)
  ctx.strokeStyle = '#cbd5e1'
  ctx.beginPath()
  ctx.moveTo(pad.l, y(0))
  ctx.lineTo(w - pad.r, y(0))
  ctx.stroke()
  for (const r of rows) {
    ctx.fillStyle = divergingColor(r.composite)
    ctx.fillRect(x(r.timestamp) - 1.5, y(r.composite) - 1.5, 3, 3)
  }
  ctx.fillStyle = '#64748b'
  ctx.fillText(when(t0), pad.l, h - 4)
  return true
}

const pctOf = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${num(v * 100, 2)}%`)

export function ConfirmLookback(props: { symbol: string; direction: 'long' | 'short' }) {
  const { symbol, direction } = props
  const { start, end } = lookback()
  const history = useApi(`${symbol}:${direction}:${start}`, () =>
    client.GET('/v1/confirm/history', { params: { query: { symbol, direction, start, end, interval: '1h' } } })
  )
  const evaluation = useApi(`${symbol}:${direction}:${start}`, () =>
    client.GET('/v1/confirm/evaluation', { params: { query: { symbol, direction, start, end, interval: '1h' } } })
  )
  const rows = history.data?.data ?? []
  const canvas = useCanvas((ctx, w, h) => drawComposite(ctx, w, h, rows), [rows])
  const e: ConfirmEvaluation | null = evaluation.data
  return (
    <>
      <h2>
        History: the answer at each hour of the last {LOOKBACK_DAYS} days, as it was then ({rows.length} steps)
      </h2>
      <ErrorLine error={history.error} />
      <canvas class="plot short" ref={canvas} data-testid="confirm-history-canvas" />
      <table class="grid" data-testid="confirm-history">
        <thead>
          <tr>
            <th>step (UTC)</th>
            <th>action</th>
            <th>confidence</th>
            <th class="r">composite</th>
            <th class="r">size</th>
          </tr>
        </thead>
        <tbody>
          {rows
            .slice(-12)
            .reverse()
            .map((r) => (
              <tr>
                <td>{when(r.timestamp)}</td>
                <td class={`action-${r.action}`}>{r.action}</td>
                <td>{r.confidence}</td>
                <td class="r">{num(r.composite, 3)}</td>
                <td class="r">{num(r.size_mult, 2)}×</td>
              </tr>
            ))}
        </tbody>
      </table>
      <h2>Evaluation: forward return of the {direction} after each answer (walk-forward, same days)</h2>
      <ErrorLine error={evaluation.error} />
      <table class="grid" data-testid="confirm-evaluation">
        <thead>
          <tr>
            <th>answer</th>
            <th class="r">n</th>
            {HORIZONS.map((hz) => (
              <th class="r">{hz}: mean · hit · 95% interval</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {e
            ? [...e.groups, e.baseline]
                .filter((g) => g.answers > 0)
                .map((g) => (
                  <tr>
                    <td class={`action-${g.action}`}>
                      {g.action === 'ALWAYS_CONFIRM' ? 'always (baseline)' : `${g.action} ${g.confidence ?? ''}`}
                    </td>
                    <td class="r">{g.answers}</td>
                    {HORIZONS.map((hz) => {
                      const s = g.horizons[hz]
                      return (
                        <td class="r">
                          {s && s.n > 0
                            ? `${pctOf(s.mean)} · ${pctOf(s.hit_rate)} · ${s.ci95 ? `${pctOf(s.ci95[0])} … ${pctOf(s.ci95[1])}` : '–'}`
                            : '–'}
                        </td>
                      )
                    })}
                  </tr>
                ))
            : null}
        </tbody>
      </table>
      {e ? (
        <p class="muted">
          Priced from {e.markets.map((m) => `${m.exchange} ${m.symbol}`).join(', ')} ({e.price_timeframe} closes); hit:
          share of returns above 0; interval: {e.interval_method}. Returns beyond the stored data are left out.
        </p>
      ) : null}
    </>
  )
}
