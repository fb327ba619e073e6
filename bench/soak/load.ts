/**
 * @module
 * The soak's three load parts against one server, all on loopback: keyed reads over the main read
 * endpoints at a steady rate, WebSocket subscribers on several channels, and signal events handed to
 * webhook delivery at a steady rate (a registered webhook, the receiver in its own process). Each part
 * counts what it did; `stop` ends it.
 */
import WebSocket from 'ws'

/** Read paths, taken in turn (each a keyed GET answered from live state or the store). */
export const READ_PATHS = [
  '/v1/confirm?symbol=BTC&direction=long',
  '/v1/options/chain?currency=BTC',
  '/v1/derivatives/screener',
  '/v1/whales/events',
  '/v1/whales/summary',
  '/v1/signals',
  '/v1/options/chain?currency=ETH',
  '/v1/historical/ohlcv?symbol=BTC&timeframe=1m&limit=240',
  '/v1/historical/ohlcv?symbol=ETH&timeframe=1h&limit=24',
  '/v1/confirm?symbol=ETH&direction=short'
] as const

/** Channels a subscriber picks CHANNELS_PER_SOCKET of, starting at its index (so every channel is held). */
const CHANNELS = [
  'trades:BTC',
  'trades:ETH',
  'candles:BTC:1m',
  'candles:ETH:5m',
  'screener',
  'options:BTC',
  'confirm:BTC',
  'funding:BTC',
  'whales:all',
  'signals:all'
] as const
const CHANNELS_PER_SOCKET = 3

export interface PartCounts {
  [name: string]: number
}

export interface LoadPart {
  counts(): PartCounts
  stop(): Promise<void>
}

/** A fixed-rate loop: `fn` every 1000 / perS ms, at most `inFlight` unanswered (a slow server is not piled on). */
function paced(perS: number, inFlight: number, fn: (i: number) => Promise<void>): { stop(): Promise<void> } {
  let i = 0
  let pending = 0
  const running = new Set<Promise<void>>()
  const timer = setInterval(() => {
    if (pending >= inFlight) return
    pending++
    const p = fn(i++).finally(() => {
      pending--
      running.delete(p)
    })
    running.add(p)
  }, 1000 / perS)
  return {
    stop: async () => {
      clearInterval(timer)
      await Promise.allSettled([...running])
    }
  }
}

/** Keyed GETs over READ_PATHS in turn, `perS` per second. */
export function startReads(base: string, key: string, perS: number): LoadPart {
  const c = { requests: 0, ok: 0, non2xx: 0, errors: 0 }
  const byPath: Record<string, number> = {}
  const loop = paced(perS, 64, async (i) => {
    const p = READ_PATHS[i % READ_PATHS.length]!
    c.requests++
    try {
      const res = await fetch(base + p, { headers: { 'x-api-key': key } })
      await res.arrayBuffer()
      if (res.ok) c.ok++
      else {
        c.non2xx++
        byPath[`${res.status} ${p}`] = (byPath[`${res.status} ${p}`] ?? 0) + 1
      }
    } catch {
      c.errors++
    }
  })
  return { counts: () => ({ ...c, ...byPath }), stop: () => loop.stop() }
}

/** `n` WebSocket subscribers, each on CHANNELS_PER_SOCKET channels; resolves once every snapshot arrived. */
export async function startSubscribers(wsBase: string, key: string, n: number): Promise<LoadPart> {
  const c = { sockets: 0, closed: 0, frames: 0, updates: 0, bytes: 0 }
  const sockets: WebSocket[] = []
  const open = (j: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const channels = Array.from({ length: CHANNELS_PER_SOCKET }, (_, k) => CHANNELS[(j + k) % CHANNELS.length]!)
      const ws = new WebSocket(`${wsBase}/v1/stream?key=${key}`, { perMessageDeflate: false })
      let snapshots = 0
      ws.once('error', reject)
      ws.on('close', () => c.closed++)
      ws.once('open', () => {
        sockets.push(ws)
        c.sockets++
        ws.send(JSON.stringify({ op: 'subscribe', id: 1, channels }))
      })
      ws.on('message', (data: Buffer) => {
        c.frames++
        c.bytes += data.length
        const text = data.toString('utf8')
        if (text.startsWith('{"type":"update"')) c.updates++
        else if (text.startsWith('{"type":"snapshot"') && ++snapshots === channels.length) resolve()
      })
    })
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => open(i + k)))
  return {
    counts: () => ({ ...c, open: sockets.filter((s) => s.readyState === WebSocket.OPEN).length }),
    stop: async () => {
      for (const ws of sockets) ws.terminate()
    }
  }
}

/** Signal events handed to webhook delivery (admin API), `perS` per second; the receiver counts deliveries. */
export function startWebhookEvents(base: string, adminToken: string, perS: number): LoadPart {
  const c = { events: 0, deliveries: 0, errors: 0 }
  const loop = paced(perS, 16, async (i) => {
    try {
      const res = await fetch(`${base}/v1/admin/webhooks/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          event: i % 2 ? 'HIGH' : 'SIGNAL',
          symbol: i % 3 ? 'BTC' : 'ETH',
          direction: i % 2 ? 'long' : 'short',
          composite: 0.5
        })
      })
      const body = (await res.json()) as { deliveries?: number }
      if (res.status === 202) {
        c.events++
        c.deliveries += body.deliveries ?? 0
      } else c.errors++
    } catch {
      c.errors++
    }
  })
  return { counts: () => ({ ...c }), stop: () => loop.stop() }
}
