/**
 * @module
 * The physical floor of the wire benchmark, a child process (IPC): a bare uWebSockets.js pub/sub server
 * that holds one upstream `ws` connection per perpetual venue (the same client library and loopback hop as
 * Tidewatch's sources), subscribed to every market's trade stream, and forwards each raw venue message
 * unparsed to its subscribers. The topic comes from a fixed-position string scan of the message head (the
 * stream, topic or instId), not a JSON parse: `trades:<base>` for every venue of the base, and
 * `candles:<base>:1m` for the base's candle venue, the channels the Tidewatch subscribers hold.
 * Subscribers send `{"op":"subscribe","channels":[...]}` and get `{"type":"subscribed"}`.
 */
import uWS from 'uWebSockets.js'
import WebSocket from 'ws'
import { HARD_BACKPRESSURE_BYTES, IDLE_TIMEOUT_S } from '../../server/stream/stream-service.js'
import { candleVenues, type WireMarket, type WireVenue } from './markets.js'

interface Init {
  readonly markets: WireMarket[]
  readonly env: Record<string, string>
}

/** venue symbol (Binance: lower case, as its stream names) -> [trades topic, candles topic or null] */
type Routes = Map<string, [string, string | null]>

function routesOf(venue: WireVenue, markets: readonly WireMarket[]): Routes {
  const candles = candleVenues(markets)
  const out: Routes = new Map()
  for (const m of markets) {
    if (m.exchange !== venue) continue
    const key = venue === 'binance' ? m.symbol.toLowerCase() : m.symbol
    out.set(key, [`trades:${m.base}`, candles.get(m.base) === venue ? `candles:${m.base}:1m` : null])
  }
  return out
}

/** The venue symbol a trade message is about, from the message head; null for anything else. */
function symbolOf(venue: WireVenue, text: string): string | null {
  if (venue === 'binance') {
    // {"stream":"btcusdt@aggTrade","data":...}
    if (!text.startsWith('{"stream":"')) return null
    const at = text.indexOf('@', 11)
    return at < 0 ? null : text.slice(11, at)
  }
  if (venue === 'bybit') {
    // {"topic":"publicTrade.BTCUSDT",...}
    if (!text.startsWith('{"topic":"publicTrade.')) return null
    return text.slice(22, text.indexOf('"', 22))
  }
  // {"arg":{"channel":"trades","instId":"BTC-USDT-SWAP"},"data":[...]}
  if (!text.startsWith('{"arg":{"channel":"trades","instId":"')) return null
  return text.slice(37, text.indexOf('"', 37))
}

function upstream(venue: WireVenue, init: Init, app: uWS.TemplatedApp, counts: { forwarded: number }): Promise<void> {
  const routes = routesOf(venue, init.markets)
  const symbols = init.markets.filter((m) => m.exchange === venue).map((m) => m.symbol)
  const url =
    venue === 'binance'
      ? `${init.env['BINANCE_WS_URL']}/stream`
      : venue === 'bybit'
        ? init.env['BYBIT_WS_URL']!
        : init.env['OKX_WS_URL']!
  const ws = new WebSocket(url, { perMessageDeflate: false })
  ws.on('message', (data: Buffer) => {
    const text = data.toString('utf8')
    const sym = symbolOf(venue, text)
    const route = sym === null ? undefined : routes.get(sym)
    if (!route) return
    app.publish(route[0], text, false)
    if (route[1]) app.publish(route[1], text, false)
    counts.forwarded++
  })
  return new Promise((resolve, reject) => {
    ws.once('error', reject)
    ws.once('open', () => {
      for (let i = 0; i < symbols.length; i += 100) {
        const part = symbols.slice(i, i + 100)
        if (venue === 'binance')
          ws.send(
            JSON.stringify({ method: 'SUBSCRIBE', params: part.map((s) => `${s.toLowerCase()}@aggTrade`), id: i })
          )
        else if (venue === 'bybit')
          ws.send(JSON.stringify({ op: 'subscribe', args: part.map((s) => `publicTrade.${s}`) }))
        else ws.send(JSON.stringify({ op: 'subscribe', args: part.map((s) => ({ channel: 'trades', instId: s })) }))
      }
      resolve()
    })
  })
}

async function main(init: Init): Promise<void> {
  const app = uWS.App()
  const counts = { forwarded: 0 }
  app.ws('/*', {
    compression: uWS.DISABLED,
    maxBackpressure: HARD_BACKPRESSURE_BYTES,
    idleTimeout: IDLE_TIMEOUT_S,
    message: (ws, msg) => {
      const m = JSON.parse(Buffer.from(msg).toString('utf8')) as { op: string; channels: string[] }
      if (m.op !== 'subscribe') return
      for (const c of m.channels) ws.subscribe(c)
      ws.send('{"type":"subscribed"}', false)
    }
  })
  const port = await new Promise<number>((resolve) =>
    app.listen('127.0.0.1', 0, (token) => resolve(uWS.us_socket_local_port(token)))
  )
  await Promise.all((['binance', 'bybit', 'okx'] as const).map((v) => upstream(v, init, app, counts)))
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'counts') process.send!({ counts })
    else if (m.cmd === 'stop') process.exit(0)
  })
  process.send!({ ready: true, port })
}

process.once('message', (init: Init) => void main(init))
