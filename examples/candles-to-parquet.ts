/**
 * @module
 * Example backtest-data puller (docs/history.md "GET /v1/historical/ohlcv"): walks a fixed candle range page
 * by page with `next_cursor` (every candle once, in order) and writes it to a Parquet file, one row group per
 * page, with `parquetjs-lite`. A fixed `start_time`/`end_time` keeps the walk from moving with the clock.
 * Retries a page after a 429 or 503 for the server's Retry-After.
 *
 *   TIDEWATCH_KEY=tw_live_... node dist/examples/candles-to-parquet.js BTC 1h 90 btc-1h.parquet
 *
 * Arguments: symbol, timeframe, days back from now (rounded down to the hour), output file.
 * Env: TIDEWATCH_URL (default http://127.0.0.1:8080), TIDEWATCH_KEY; END_MS and PAGE_LIMIT pin the range's end
 * and the page size.
 */
import parquet from 'parquetjs-lite'

export interface Candle {
  readonly timestamp: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume_base: number
  readonly volume_quote: number
  readonly trades: number
}

/** The candle record's columns; `timestamp` as a Parquet timestamp (ms, UTC) that pandas reads as datetime64. */
const SCHEMA = new parquet.ParquetSchema({
  timestamp: { type: 'TIMESTAMP_MILLIS' },
  open: { type: 'DOUBLE' },
  high: { type: 'DOUBLE' },
  low: { type: 'DOUBLE' },
  close: { type: 'DOUBLE' },
  volume_base: { type: 'DOUBLE' },
  volume_quote: { type: 'DOUBLE' },
  trades: { type: 'INT64' }
})

/** Candles per page (the endpoint's largest `limit`). */
const PAGE = 10_000

async function page(url: URL, key: string): Promise<{ data: Candle[]; next_cursor: number | null }> {
  for (;;) {
    const res = await fetch(url, { headers: { 'x-api-key': key } })
    if (res.status === 429 || res.status === 503) {
      const wait = Number(res.headers.get('retry-after') ?? '5')
      await new Promise((r) => setTimeout(r, Math.min(wait, 60) * 1000))
      continue
    }
    const body = (await res.json()) as { data: Candle[]; next_cursor: number | null; error?: { message: string } }
    if (!res.ok) throw new Error(`${res.status}: ${body.error?.message ?? 'request failed'}`)
    return body
  }
}

/** Writes every candle of [startMs, endMs) to `file`; resolves with the rows written and the pages read. */
export async function pullCandles(o: {
  readonly base: string
  readonly key: string
  readonly symbol: string
  readonly timeframe: string
  readonly startMs: number
  readonly endMs: number
  readonly file: string
  readonly limit?: number
}): Promise<{ rows: number; pages: number }> {
  const writer = await parquet.ParquetWriter.openFile(SCHEMA, o.file)
  let rows = 0
  let pages = 0
  let cursor: number | null = null
  try {
    do {
      const url = new URL('/v1/historical/ohlcv', o.base)
      url.searchParams.set('symbol', o.symbol)
      url.searchParams.set('timeframe', o.timeframe)
      url.searchParams.set('start_time', String(o.startMs))
      url.searchParams.set('end_time', String(o.endMs))
      url.searchParams.set('limit', String(o.limit ?? PAGE))
      if (cursor !== null) url.searchParams.set('cursor', String(cursor))
      const p = await page(url, o.key)
      for (const c of p.data) {
        await writer.appendRow({ ...c, timestamp: new Date(c.timestamp) })
        rows++
      }
      pages++
      cursor = p.next_cursor
    } while (cursor !== null)
  } finally {
    await writer.close()
  }
  return { rows, pages }
}

if (process.argv[1]?.endsWith('candles-to-parquet.js')) {
  const [symbol = 'BTC', timeframe = '1h', days = '90', file = `${symbol.toLowerCase()}-${timeframe}.parquet`] =
    process.argv.slice(2)
  const HOUR = 3_600_000
  // END_MS pins the range's end (default: now, rounded down to the hour); PAGE_LIMIT sets the page size
  const endMs = Number(process.env['END_MS'] || Math.floor(Date.now() / HOUR) * HOUR)
  const r = await pullCandles({
    base: process.env['TIDEWATCH_URL'] ?? 'http://127.0.0.1:8080',
    key: process.env['TIDEWATCH_KEY'] ?? '',
    symbol,
    timeframe,
    startMs: endMs - Number(days) * 24 * HOUR,
    endMs,
    file,
    limit: Number(process.env['PAGE_LIMIT'] || PAGE)
  })
  console.log(`${r.rows} candles in ${r.pages} pages written to ${file}`)
}
