/**
 * @module
 * What the scale benchmark reads from a filled data dir, all over a window of fixed length so the cost
 * should follow the window asked, not what is stored:
 * - the history endpoints (`readMix`): OHLCV 1m (one page of 10,000 candles) and 1h over the fixed window
 *   [fromMs, toMs), and the windows counted back from now (funding heatmap 30 d hourly, whale history 30 d
 *   at 4 h, options max pain 720 h), p50/p99 of each over `perEndpoint` requests rotating over markets;
 * - the fixed window's candles (`candleDigest`): every page of 1m and 1h candles of the checked markets,
 *   hashed as served, so sizes compare byte for byte;
 * - the export of every base's 1m candles over the fixed window (Parquet over HTTP), rows counted from the file.
 */
import { createHash } from 'node:crypto'
import { median } from '../stats.js'
import { httpExport } from '../history/realistic-export.js'
import { round, withRss } from '../history/measure.js'
import { threadCpuDiff, threadCpuOf } from '../history/thread-cpu-of.js'

export interface Market {
  readonly exchange: string
  readonly symbol: string
  readonly base: string
}

export interface FixedWindow {
  /** epoch ms, inclusive, hour-aligned */
  readonly fromMs: number
  /** epoch ms, exclusive, hour-aligned */
  readonly toMs: number
}

/** candles per OHLCV page (the endpoint's largest `limit`) */
const PAGE = 10_000

async function get(base: string, key: string, pathAndQuery: string): Promise<{ ms: number; body: string }> {
  const t0 = performance.now()
  const res = await fetch(`${base}${pathAndQuery}`, { headers: { 'x-api-key': key } })
  const body = await res.text()
  const ms = performance.now() - t0
  if (res.status !== 200) throw new Error(`${pathAndQuery.slice(0, 120)} answered ${res.status}: ${body.slice(0, 300)}`)
  return { ms, body }
}

const ohlcv = (m: Market, tf: '1m' | '1h', fromMs: number, toMs: number): string =>
  `/v1/historical/ohlcv?symbol=${m.symbol}&exchange=${m.exchange}&timeframe=${tf}&start_time=${fromMs}&end_time=${toMs}&limit=${PAGE}`

/** The request paths of each endpoint of the read mix, the `i`-th of a rotation over `markets`. */
function mixRequest(kind: string, i: number, markets: readonly Market[], w: FixedWindow): string {
  const m = markets[i % markets.length]!
  const whaleAssets = ['ETH', 'BTC', 'USDT', 'USDC']
  switch (kind) {
    case 'ohlcv_1m':
      return ohlcv(m, '1m', w.fromMs, w.toMs)
    case 'ohlcv_1h':
      return ohlcv(m, '1h', w.fromMs, w.toMs)
    case 'funding':
      return `/v1/historical/derivatives/funding-heatmap?symbol=${m.symbol}&exchange=${m.exchange}&interval=1h&lookback=30d`
    case 'whales':
      return `/v1/historical/whales?asset=${whaleAssets[i % whaleAssets.length]}&interval=4h&lookback=30d`
    default:
      return `/v1/options/history?currency=${i % 2 ? 'ETH' : 'BTC'}&metric=max_pain&hours=720`
  }
}

export const MIX_KINDS = ['ohlcv_1m', 'ohlcv_1h', 'funding', 'whales', 'options'] as const

export interface MixResult {
  readonly latency_ms: Record<string, { p50: number; p99: number; n: number }>
  readonly rss_peak_mb: number
  readonly rss_before_mb: number
}

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
}

/** The read mix, kinds interleaved request by request; one unmeasured pass first (caches, first query). */
export async function readMix(
  base: string,
  key: string,
  pid: number,
  markets: readonly Market[],
  w: FixedWindow,
  perEndpoint: number
): Promise<MixResult> {
  for (const kind of MIX_KINDS) await get(base, key, mixRequest(kind, 0, markets, w))
  const ms: Record<string, number[]> = Object.fromEntries(MIX_KINDS.map((k) => [k, []]))
  const r = await withRss(pid, async () => {
    for (let i = 0; i < perEndpoint; i++) {
      for (const kind of MIX_KINDS) ms[kind]!.push((await get(base, key, mixRequest(kind, i, markets, w))).ms)
    }
  })
  const latency_ms = Object.fromEntries(
    Object.entries(ms).map(([k, xs]) => [k, { p50: round(median(xs)), p99: round(quantile(xs, 0.99)), n: xs.length }])
  )
  return { latency_ms, rss_peak_mb: Math.round(r.peak), rss_before_mb: Math.round(r.before) }
}

/**
 * SHA-256 over every 1m and 1h candle page of `markets` in the window, as served (bodies in order), and
 * the candle count: equal digests mean byte-identical answers.
 */
export async function candleDigest(
  base: string,
  key: string,
  markets: readonly Market[],
  w: FixedWindow
): Promise<{ sha256: string; candles: number }> {
  const hash = createHash('sha256')
  let candles = 0
  for (const m of markets) {
    for (const tf of ['1m', '1h'] as const) {
      let cursor: number | null = w.fromMs
      while (cursor !== null) {
        const { body } = await get(base, key, `${ohlcv(m, tf, w.fromMs, w.toMs)}&cursor=${cursor}`)
        hash.update(body)
        const page = JSON.parse(body) as { data: unknown[]; next_cursor: number | null }
        candles += page.data.length
        cursor = page.next_cursor
      }
    }
  }
  return { sha256: hash.digest('hex'), candles }
}

/** The export of every base's 1m candles over the window as Parquet, into `file` (removed after). */
export async function exportRun(
  base: string,
  key: string,
  pid: number,
  bases: readonly string[],
  w: FixedWindow,
  file: string
): Promise<{
  rows: number
  rows_per_s: number
  mb: number
  server_cpu_s: number
  rss_growth_mb: number
  /** the server's CPU seconds during the export by thread name (where the export's time went) */
  server_threads_cpu_s: Record<string, number>
}> {
  const url = `${base}/v1/backtest/export?symbols=${bases.join(',')}&timeframe=1m&start_time=${w.fromMs}&end_time=${w.toMs}&format=parquet`
  const threads0 = threadCpuOf(pid)
  const r = await httpExport(pid, url, key, file, 'parquet')
  const threads = threadCpuDiff(threads0, threadCpuOf(pid))
  return {
    rows: r.rows,
    rows_per_s: r.rowsPerS,
    mb: r.mb,
    server_cpu_s: r.cpuS,
    rss_growth_mb: r.rssGrowthMb,
    server_threads_cpu_s: threads
  }
}
