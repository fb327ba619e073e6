/**
 * @module
 * Candles for any symbol and timeframe (GET /v1/historical/ohlcv), drawn with lightweight-charts; the
 * forming candle follows the `candles:<symbol>:<tf>` stream channel.
 */
import {
  CandlestickSeries,
  createChart,
  HistogramSeries,
  type IChartApi,
  type ISeriesApi,
  type UTCTimestamp
} from 'lightweight-charts'
import { useEffect, useRef, useState } from 'preact/hooks'
import { subscribe } from '../lib/stream.js'
import { ErrorLine, Page, useApi, SymbolForm } from '../lib/ui.js'
import { client } from '../lib/api.js'
import type { Candle } from '../lib/api-types.js'

const TIMEFRAMES = ['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M'] as const
/** a timeframe the URL names goes to the API as is: an unknown one answers 400, shown on the page */
type Timeframe = (typeof TIMEFRAMES)[number]

function toBar(c: Candle) {
  return {
    time: Math.floor(c.timestamp / 1000) as UTCTimestamp,
    open: c.open,
    high: c.high,
    low: c.low,
    close: c.close
  }
}

function toVolume(c: Candle) {
  return {
    time: Math.floor(c.timestamp / 1000) as UTCTimestamp,
    value: c.volume_quote,
    color: c.close >= c.open ? 'rgba(22,163,74,0.35)' : 'rgba(220,38,38,0.35)'
  }
}

export function CandlesPage(props: { query: URLSearchParams }) {
  const [symbol, setSymbol] = useState(props.query.get('symbol') ?? 'BTC')
  const [tf, setTf] = useState(props.query.get('timeframe') ?? '1h')
  const res = useApi(`${symbol}:${tf}`, () =>
    client.GET('/v1/historical/ohlcv', { params: { query: { symbol, timeframe: tf as Timeframe, limit: 1000 } } })
  )
  const box = useRef<HTMLDivElement>(null)
  const chart = useRef<{
    chart: IChartApi
    candles: ISeriesApi<'Candlestick'>
    volume: ISeriesApi<'Histogram'>
  } | null>(null)

  useEffect(() => {
    if (!box.current) return
    const c = createChart(box.current, {
      autoSize: true,
      layout: { background: { color: '#ffffff' }, textColor: '#334155', attributionLogo: false },
      grid: { vertLines: { color: '#eef2f7' }, horzLines: { color: '#eef2f7' } },
      timeScale: { timeVisible: true, secondsVisible: false }
    })
    const candles = c.addSeries(CandlestickSeries, {
      upColor: '#16a34a',
      downColor: '#dc2626',
      borderVisible: false,
      wickUpColor: '#16a34a',
      wickDownColor: '#dc2626'
    })
    const volume = c.addSeries(HistogramSeries, { priceScaleId: 'vol', priceFormat: { type: 'volume' } })
    c.priceScale('vol').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } })
    chart.current = { chart: c, candles, volume }
    return () => {
      chart.current = null
      c.remove()
    }
  }, [])

  useEffect(() => {
    const c = chart.current
    if (!c || !res.data) return
    c.candles.setData(res.data.data.map(toBar))
    c.volume.setData(res.data.data.map(toVolume))
    c.chart.timeScale().fitContent()
  }, [res.data])

  useEffect(() => {
    // live: the forming candle (and each closed one) of this market and timeframe
    return subscribe(`candles:${symbol}:${tf}`, (f) => {
      const c = chart.current
      const candle: Candle | undefined = f.type === 'snapshot' ? f.data?.forming : f.data
      if (!c || !candle || typeof candle.timestamp !== 'number') return
      try {
        c.candles.update(toBar(candle))
        c.volume.update(toVolume(candle))
      } catch {
        // an update older than the last bar (e.g. a snapshot racing the HTTP load) is ignored
      }
    })
  }, [symbol, tf])

  const meta = res.data?.meta
  return (
    <Page
      title="Candles"
      synthetic={res.data?.synthetic}
      tools={
        <SymbolForm symbol={symbol} onSymbol={setSymbol} size={14} submit="Show">
          <select aria-label="Timeframe" value={tf} onChange={(e) => setTf(e.currentTarget.value)}>
            {TIMEFRAMES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
        </SymbolForm>
      }
    >
      <ErrorLine error={res.error} />
      <p class="muted">
        {meta
          ? `${meta.symbol} on ${meta.exchange}, ${meta.rows} candles of ${meta.timeframe}`
          : res.loading
            ? 'Loading…'
            : ''}
      </p>
      <div class="chart" ref={box} data-testid="candles-chart" />
    </Page>
  )
}
