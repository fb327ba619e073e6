/**
 * @module
 * One WebSocket to /v1/stream shared by the open view (docs/stream.md). The session cookie authenticates
 * the upgrade; a development key goes in `?key=` (browsers cannot set headers on a WebSocket). `subscribe`
 * returns an unsubscribe function; the socket closes when nothing is subscribed and reconnects with
 * backoff (1 s doubling to 30 s) while something is. An upgrade refused three times in a row (a plan
 * without streaming, or signed out: the browser does not show the HTTP answer) stops the retries until the
 * next subscription; status `unavailable`. A caller whose plan has no push stream (signed out, the free plan)
 * opens no socket at all: `subscribe` does nothing and the status is `off`.
 */
import { devKey } from './api.js'
import { allows } from './plan.js'

export interface StreamFrame {
  readonly type: 'snapshot' | 'update'
  readonly channel: string
  readonly data: any
}

type Handler = (frame: StreamFrame) => void

const handlers = new Map<string, Set<Handler>>()
let socket: WebSocket | null = null
let backoffMs = 1000
/** connections in a row that closed without ever opening */
let refused = 0
/** refusals after which reconnecting stops (a plan without streaming will not change by retrying) */
const MAX_REFUSED = 3
const statusListeners = new Set<(s: string) => void>()
let status = 'idle'

function setStatus(s: string): void {
  status = s
  for (const l of statusListeners) l(s)
}

export function onStreamStatus(l: (s: string) => void): () => void {
  statusListeners.add(l)
  l(status)
  return () => statusListeners.delete(l)
}

function send(op: 'subscribe' | 'unsubscribe', channels: string[]): void {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ op, channels }))
}

function connect(): void {
  const key = devKey()
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:'
  const url = `${proto}//${location.host}/v1/stream${key ? `?key=${encodeURIComponent(key)}` : ''}`
  const ws = new WebSocket(url)
  socket = ws
  setStatus('connecting')
  let opened = false
  ws.onopen = () => {
    opened = true
    refused = 0
    backoffMs = 1000
    setStatus('live')
    if (handlers.size > 0) send('subscribe', [...handlers.keys()])
  }
  ws.onmessage = (ev) => {
    if (typeof ev.data !== 'string') return
    const frame = JSON.parse(ev.data) as StreamFrame & { type: string }
    if (frame.type !== 'snapshot' && frame.type !== 'update') return
    // the ack names channels canonically (upper-case base): match case-insensitively
    for (const [ch, set] of handlers) {
      if (ch.toLowerCase() === frame.channel.toLowerCase()) for (const h of set) h(frame)
    }
  }
  ws.onclose = () => {
    if (socket !== ws) return
    socket = null
    if (!opened && ++refused >= MAX_REFUSED) {
      setStatus('unavailable')
      return
    }
    setStatus('offline')
    if (handlers.size > 0) {
      setTimeout(() => {
        if (!socket && handlers.size > 0) connect()
      }, backoffMs)
      backoffMs = Math.min(backoffMs * 2, 30_000)
    }
  }
}

export function subscribe(channel: string, h: Handler): () => void {
  if (!allows('stream')) {
    if (status === 'idle') setStatus('off')
    return () => undefined
  }
  let set = handlers.get(channel)
  if (!set) {
    handlers.set(channel, (set = new Set()))
    if (!socket) {
      refused = 0
      connect()
    } else send('subscribe', [channel])
  }
  set.add(h)
  return () => {
    set!.delete(h)
    if (set!.size > 0) return
    handlers.delete(channel)
    send('unsubscribe', [channel])
    if (handlers.size === 0 && socket) {
      const s = socket
      socket = null
      s.close()
      setStatus('idle')
    }
  }
}
