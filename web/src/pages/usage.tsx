/**
 * @module
 * Usage per key (GET /v1/account/usage): calls per day over 30 days as a histogram (lightweight-charts,
 * refused 429 calls as a second series), today's calls against the daily quota, the reset time and the
 * 30-day 429 count.
 */
import { createChart, HistogramSeries, type UTCTimestamp } from 'lightweight-charts'
import { useEffect, useRef } from 'preact/hooks'
import { num, when } from '../lib/format.js'
import { ErrorLine, Page, useApi } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { KeyUsage } from '../lib/api-types.js'

const dayTime = (day: string): UTCTimestamp => (Date.parse(`${day}T00:00:00Z`) / 1000) as UTCTimestamp

function UsageChart(props: { usage: KeyUsage }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!box.current) return
    const chart = createChart(box.current, {
      autoSize: true,
      layout: { background: { color: '#ffffff' }, textColor: '#334155', attributionLogo: false },
      grid: { vertLines: { visible: false }, horzLines: { color: '#eef2f7' } },
      timeScale: { timeVisible: false }
    })
    const counts = { type: 'price', precision: 0, minMove: 1 } as const
    const calls = chart.addSeries(HistogramSeries, { color: '#0f766e', priceFormat: counts, priceLineVisible: false })
    const refused = chart.addSeries(HistogramSeries, {
      color: '#dc2626',
      priceFormat: counts,
      priceLineVisible: false,
      lastValueVisible: false
    })
    calls.setData(props.usage.days.map((d) => ({ time: dayTime(d.day), value: d.calls })))
    refused.setData(props.usage.days.map((d) => ({ time: dayTime(d.day), value: d.throttled })))
    chart.timeScale().fitContent()
    return () => chart.remove()
  }, [props.usage])
  return <div class="chart small" ref={box} data-testid={`usage-chart-${props.usage.id}`} />
}

export function UsagePage() {
  const usage = useApi('usage', () => client.GET('/v1/account/usage'))
  return (
    <Page title="Usage" tools={<button onClick={usage.reload}>Refresh</button>}>
      <ErrorLine error={usage.error} />
      {(usage.data?.keys ?? []).map((k) => {
        const refused = k.days.reduce((s, d) => s + d.throttled, 0)
        return (
          <div class="usage-key" key={k.id}>
            <h2>
              {k.name} <span class="muted mono">{k.id}</span>
            </h2>
            <div class="cards">
              <div class="card">
                <div class="label">Calls today</div>
                <div class="big" data-testid={`used-today-${k.id}`}>
                  {num(k.used_today, 0)}
                </div>
              </div>
              <div class="card">
                <div class="label">Daily quota ({k.plan})</div>
                <div class="big">{k.quota_per_day === null ? 'unlimited' : num(k.quota_per_day, 0)}</div>
              </div>
              <div class="card">
                <div class="label">Resets at (UTC)</div>
                <div class="big">{when(k.reset_at)}</div>
              </div>
              <div class="card">
                <div class="label">429s, 30 days</div>
                <div class="big">{num(refused, 0)}</div>
              </div>
            </div>
            <UsageChart usage={k} />
          </div>
        )
      })}
    </Page>
  )
}
