/**
 * @module
 * The replay benchmark's input: a recorded Binance aggTrade capture in the RECORD_DIR format (gzipped
 * NDJSON, combined-stream envelopes exactly as the live feed records them), made deterministically (seed
 * 42) so every run replays the same bytes: `trades` aggregate trades over 50 USDT perpetuals, about 2,000
 * per second of receive time, preceded by the exchangeInfo answer the recorder keeps at the top of a file.
 */
import fs from 'node:fs'
import zlib from 'node:zlib'
import { recordedLine } from '../../ingest/record/recording-format.js'
import { mulberry32 } from '../mulberry32.js'

const MARKETS = 50
const START = Date.UTC(2026, 9, 1)

const rng = mulberry32

/**
 * Writes the capture to `file` (gzip level 1: the bench measures replay, not our compression). `start`:
 * receive time of the first line, epoch ms (tests that keep the rows past the raw tables' TTL pass a
 * recent one).
 */
export async function writeCapture(file: string, trades: number, start = START): Promise<void> {
  const random = rng(42)
  const symbols = Array.from({ length: MARKETS }, (_, i) => (i === 0 ? 'BTC' : i === 1 ? 'ETH' : `C${i}X`) + 'USDT')
  const price = symbols.map((_, i) => (i === 0 ? 97_000 : i === 1 ? 3_400 : 0.5 + 50 * random()))
  const decimals = price.map((p) => (p > 1000 ? 1 : p > 10 ? 3 : 5))
  const ids = symbols.map(() => 1_000_000 + Math.floor(random() * 1e6))
  const gzip = zlib.createGzip({ level: 1 })
  const out = fs.createWriteStream(file)
  gzip.pipe(out)
  const info = {
    symbols: symbols.map((s) => ({
      symbol: s,
      contractType: 'PERPETUAL',
      status: 'TRADING',
      baseAsset: s.slice(0, -4),
      quoteAsset: 'USDT'
    }))
  }
  gzip.write(recordedLine('binance', '/fapi/v1/exchangeInfo', JSON.stringify(info), start))
  let buf = ''
  for (let n = 0; n < trades; n++) {
    // the busiest markets trade most: BTC and ETH take about half the flow
    const i = random() < 0.5 ? Math.floor(random() * 2) : Math.floor(random() * MARKETS)
    price[i]! *= 1 + (random() - 0.5) * 2e-4
    const ts = start + Math.floor(n / 2)
    const a = ids[i]!++
    const f = a * 3
    const s = symbols[i]!
    const data = `{"e":"aggTrade","E":${ts + 5},"a":${a},"s":"${s}","p":"${price[i]!.toFixed(decimals[i]!)}","q":"${(0.001 + random() * 2).toFixed(3)}","f":${f},"l":${f + 1},"T":${ts},"m":${random() < 0.5}}`
    buf += recordedLine('binance', 'ws', `{"stream":"${s.toLowerCase()}@aggTrade","data":${data}}`, ts + 40)
    if (buf.length > 1 << 20) {
      if (!gzip.write(buf)) await new Promise<void>((r) => gzip.once('drain', () => r()))
      buf = ''
    }
  }
  gzip.end(buf)
  await new Promise<void>((r) => out.on('close', () => r()))
}
